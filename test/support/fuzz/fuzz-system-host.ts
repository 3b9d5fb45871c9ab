import { rmSync } from 'node:fs';
import { sql } from 'kysely';
import { finalizeSession, insertSession } from '../../../subgraphs/shared/media-store/media-session.repository.ts';
import { notePendingBlob, type MediaTables } from '../../../subgraphs/shared/media-store/media-upload.repository.ts';
import { appAccessToken } from '../../../lib/auth/social-auth/social-token.service.ts';
import { createOAuthCredentialStore, createSocialTokens } from '../../../subgraphs/index.ts';
import { OWN_PERMISSIONS, PARENT_PERMISSIONS, createSocialFixture } from '../social-fixture.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../test-system.ts';
import type { HostReply, HostRequest, SystemInfo, Topology } from './fuzz-system-protocol.ts';

/**
 * The system under fuzz, in a process of its own (forked by fuzz-system.ts): the same startTestSystem /
 * startDistributedTestSystem every front-door test uses, seeded with the social fixture, a few Area A records and Area D
 * credentials. It runs apart from the test runner so that a request that kills it (an unhandled stream error, a runaway
 * allocation) is seen as what it is — the process gone — and the harness can report it and start a fresh one, while a
 * request that blocks its event loop cannot block the runner's own timers.
 *
 * It answers the parent over IPC: start a system (a topology and its configuration), a digest of every table (to prove a
 * rejected request stored nothing), the rows of a table that a door reads back, stop the system, and close. One system
 * runs at a time; after a stop the process, its modules loaded, starts the next door's system — a fresh database, seed
 * and servers — in a second or two instead of the several a new process takes to load them.
 */

/** Long enough for any fuzz run: the fixture's own tokens last an hour, and a 10 000-run door can take longer. */
const TOKEN_LIFETIME_SECONDS = 14 * 24 * 3600;

function send(message: HostReply): void {
  process.send?.(message);
}

async function seedUsers(restUrl: string): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) {
    const response = await fetch(new URL('/api/v1/userExample', restUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: `Fuzz Seed ${i}`,
        email: `fuzz-seed-${i}@example.com`,
        password: 'fuzz-seed-password',
        phone: '13800138000',
        avatar: 'https://cdn.example.com/fuzz.png',
        age: 20 + i,
        gender: i % 2 === 0 ? 'MALE' : 'FEMALE',
      }),
    });
    const body = (await response.json()) as { id?: string };
    if (response.status !== 200 || !body.id) throw new Error(`seeding Area A failed: ${response.status} ${JSON.stringify(body)}`);
    ids.push(body.id);
  }
  return ids;
}

/**
 * One md5 per table of every schema (and its row count): cheap enough to take before and after each request, and any
 * stored change — a row added, removed or altered — changes it. The tables are listed each time (a table that appears is
 * a change too) and hashed in one statement: a statement per table was most of a fuzz case's time on PGlite.
 */
async function digest(system: TestSystem): Promise<Record<string, string>> {
  const db = system.database.db;
  const tables = await sql<{ table_schema: string; table_name: string }>`
    select table_schema, table_name from information_schema.tables
    where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')
    order by table_schema, table_name`.execute(db);
  const result: Record<string, string> = {};
  if (tables.rows.length === 0) return result;
  const perTable = tables.rows.map(
    ({ table_schema: schema, table_name: table }) => sql`
      select ${`${schema}.${table}`}::text as name, count(*)::text as n, md5(coalesce(string_agg(t::text, chr(30) order by t::text), '')) as h
      from ${sql.id(schema, table)} as t`,
  );
  const rows = await sql<{ name: string; n: string; h: string }>`${sql.join(perTable, sql` union all `)}`.execute(db);
  for (const row of rows.rows) result[row.name] = `${row.n}:${row.h}`;
  return result;
}

/** The rows of `schema.table` whose `column`, as text, is `value` (a door reading back what it stored). */
async function rowsOf(system: TestSystem, table: string, column: string, value: string): Promise<Record<string, unknown>[]> {
  const [schema, name] = table.split('.');
  if (!schema || !name) throw new Error(`a table is named schema.table, got "${table}"`);
  const rows = await sql<
    Record<string, unknown>
  >`select * from ${sql.id(schema, name)} as t where t.${sql.id(column)}::text = ${value}`.execute(system.database.db);
  return rows.rows;
}

/**
 * Two chunked media ids of `uploaderId` that expired a day before the run: an open session and a finished upload (its
 * blob key names nothing: an expired upload's bytes are never read). The sweeper that would remove them runs once a day
 * under fuzz (fuzz-system.ts), so they stay put for the whole run.
 */
async function seedExpiredMedia(system: TestSystem, uploaderId: string): Promise<{ expiredSessionId: string; expiredUploadId: string }> {
  const db = system.database.db.withTables<MediaTables>();
  const created = new Date(Date.now() - 2 * 86_400_000);
  const expired = new Date(Date.now() - 86_400_000);
  const session = (mediaType: string) =>
    insertSession(db, {
      uploader_id: uploaderId,
      additional_owners: [],
      media_category: null,
      kind: 'image',
      media_type: mediaType,
      total_bytes: '100',
      created_at: created,
      expires_at: expired,
    });
  const open = await session('image/png');
  const finished = await session('image/png');
  // As the media service does: the blob's key on the ledger first, claimed by FINALIZE's transaction.
  await notePendingBlob(db, 'fuzz-expired-upload-has-no-blob', created);
  await finalizeSession(
    db,
    finished.id,
    created,
    {
      uploader_id: uploaderId,
      additional_owners: [],
      media_category: null,
      mime_type: 'image/png',
      width: 8,
      height: 8,
      frames: 0,
      size: 100,
      blob_key: 'fuzz-expired-upload-has-no-blob',
      created_at: created,
      expires_at: expired,
      processing_state: null,
      processing_progress: null,
    },
    [],
  );
  return { expiredSessionId: String(open.id), expiredUploadId: String(finished.id) };
}

/** Starts a system, seeds it, and says what a door needs to know of it. */
async function start(topology: Topology, overrides: Record<string, string>): Promise<{ system: TestSystem; info: SystemInfo }> {
  const system = topology === 'distributed' ? await startDistributedTestSystem(overrides) : await startTestSystem(overrides);
  try {
    return { system, info: await seed(system, topology) };
  } catch (error) {
    await system.close().catch(() => undefined);
    throw error;
  }
}

async function seed(system: TestSystem, topology: Topology): Promise<SystemInfo> {
  const fixture = await createSocialFixture(system.database);
  const socialTokens = createSocialTokens(system.database);
  const longToken = (loginType: 'own' | 'parent', subjectId: string, permissions: readonly string[]) =>
    socialTokens.issue({ loginType, subjectId, permissions, expiresInSeconds: TOKEN_LIFETIME_SECONDS });
  const userIds = await seedUsers(system.restUrl);
  const credentials = createOAuthCredentialStore(system.database);
  const app = await credentials.createConsumer('fuzz app');
  const accessToken = await credentials.issueAccessToken(app.consumerKey, fixture.accounts.bluebottle);
  const appBearer = await credentials.issueAppToken(app.consumerKey);
  const expiredMedia = await seedExpiredMedia(system, fixture.accounts.bluebottle);
  const webhookApp = async (name: string) => {
    const created = await socialTokens.createApp(name);
    return { id: created.id, token: appAccessToken(created) };
  };
  const webhookApps = {
    handshake: await webhookApp('Fuzz handshake app'),
    main: await webhookApp('Fuzz webhooks app'),
    other: await webhookApp('Fuzz other app'),
  };
  const appToken = (loginType: 'own' | 'parent', subjectId: string, permissions: readonly string[]) =>
    socialTokens.issue({ loginType, subjectId, permissions, expiresInSeconds: TOKEN_LIFETIME_SECONDS, appId: webhookApps.main.id });

  const info: SystemInfo = {
    topology,
    database: system.database.kind,
    pid: process.pid,
    gatewayUrl: system.gatewayUrl,
    restUrl: system.restUrl,
    socialParentUrl: system.socialParentUrl,
    grpcAddress: system.grpcAddress,
    databaseUrl: system.config.database.url,
    areaA: {
      adminToken: system.tokens.mint({ sub: 'admin', roles: ['admin'] }, { expiresIn: TOKEN_LIFETIME_SECONDS }),
      userIds,
      userTokens: Object.fromEntries(
        userIds.map((id) => [id, system.tokens.mint({ sub: id, roles: [] }, { expiresIn: TOKEN_LIFETIME_SECONDS })]),
      ),
      expiredToken: system.tokens.mint({ sub: userIds[0]!, roles: [] }, { expiresIn: -60 }),
    },
    social: {
      accounts: fixture.accounts,
      platformUsers: fixture.platformUsers,
      posts: fixture.posts.slice(0, 3),
      media: fixture.media,
      comments: fixture.comments,
      containers: [],
      tokens: {
        own: await longToken('own', fixture.accounts.bluebottle, OWN_PERMISSIONS),
        roasterOwn: await longToken('own', fixture.accounts.roaster, OWN_PERMISSIONS),
        parent: await longToken('parent', fixture.platformUsers.ana, PARENT_PERMISSIONS),
        stranger: await longToken('parent', fixture.platformUsers.stranger, PARENT_PERMISSIONS),
        bmWithoutAds: fixture.tokens.bmWithoutAds,
        expired: fixture.tokens.expired,
        revoked: fixture.tokens.revoked,
      },
    },
    media: {
      consumerKey: app.consumerKey,
      consumerSecret: app.consumerSecret,
      token: accessToken.token,
      tokenSecret: accessToken.tokenSecret,
      appBearer,
      ...expiredMedia,
    },
    webhooks: {
      apps: webhookApps,
      pages: fixture.pages,
      tokens: {
        ownWithApp: await appToken('own', fixture.accounts.bluebottle, OWN_PERMISSIONS),
        parentWithApp: await appToken('parent', fixture.platformUsers.ana, PARENT_PERMISSIONS),
        strangerWithApp: await appToken('parent', fixture.platformUsers.stranger, PARENT_PERMISSIONS),
      },
    },
  };
  return info;
}

let running: { system: TestSystem; info: SystemInfo; blobDir: string | undefined } | undefined;
let stopping: Promise<void> | undefined;

/** Closes the running system (dropping its throwaway database) and removes its blob store's directory. */
function stop(): Promise<void> {
  const current = running;
  running = undefined;
  if (!current) return stopping ?? Promise.resolve();
  stopping = current.system
    .close()
    .catch(() => undefined)
    .finally(() => {
      if (current.blobDir) rmSync(current.blobDir, { recursive: true, force: true });
    });
  return stopping;
}

function failed(id: number, error: unknown): void {
  send({ type: 'failed', id, message: (error as Error).stack ?? String(error) });
}

// The runner went away (or killed its worker): leave nothing running and drop the throwaway database.
process.on('disconnect', () => void stop().then(() => process.exit(0)));

process.on('message', (message: HostRequest) => {
  if (message.type === 'start') {
    if (running) return failed(message.id, new Error('a system is already running in this process'));
    void (stopping ?? Promise.resolve())
      .then(() => start(message.topology, message.env))
      .then(
        ({ system, info }) => {
          running = { system, info, blobDir: message.env.MEDIA_BLOB_DIR };
          send({ type: 'started', id: message.id, info });
        },
        (error: unknown) => failed(message.id, error),
      );
  } else if (message.type === 'digest' || message.type === 'rows') {
    const system = running?.system;
    if (!system) return failed(message.id, new Error('no system is running'));
    if (message.type === 'digest') {
      digest(system).then(
        (tables) => send({ type: 'digest', id: message.id, tables }),
        (error: unknown) => failed(message.id, error),
      );
    } else {
      rowsOf(system, message.table, message.column, message.value).then(
        (rows) => send({ type: 'rows', id: message.id, rows }),
        (error: unknown) => failed(message.id, error),
      );
    }
  } else if (message.type === 'stop') {
    void stop().then(() => send({ type: 'stopped', id: message.id }));
  } else if (message.type === 'close') {
    void stop().then(() => {
      send({ type: 'closed', id: message.id });
      process.exit(0);
    });
  }
});
send({ type: 'loaded' });
