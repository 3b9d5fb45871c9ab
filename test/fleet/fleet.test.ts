import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_ROLE, createTokenService } from '../../lib/auth/auth.ts';
import { loadConfig } from '../../lib/config.ts';
import { createDatabase, migrateToLatest, type DatabaseHandle } from '../../lib/database/database.ts';
import { createThrowawayDatabase, type ThrowawayDatabase } from '../../lib/database/throwaway-database.ts';
import { SUPERGRAPH_FILE } from '../../schema/supergraph-file.ts';
import { ALL_MIGRATIONS } from '../../subgraphs/index.ts';
import { ensureCompiledBuild } from '../support/compiled-build.ts';
import { CREATE, GET, validInput } from '../support/graphql-client.ts';
import { eventually } from '../support/eventually.ts';
import { haproxyAvailable, startHaproxy, type RunningHaproxy } from '../support/haproxy.ts';
import { startServiceProcess, type ServiceProcess } from '../support/os-process.ts';
import { createSocialFixture, type SocialFixture } from '../support/social-fixture.ts';

/**
 * The fleet (issue 25, item 6): two gateway processes behind HAProxy, two instances of every subgraph, one PostgreSQL —
 * the compiled entrypoints as a deployment runs them, on fixed ports so that a restarted process comes back where the
 * others look for it. Under steady load through HAProxy (GraphQL reads and writes, REST reads of Area A and of the
 * social graph across three subgraphs), each operator action must cost zero failed requests:
 * - a supergraph reloaded: a changed file (one gateway watching it, the other sent SIGHUP), then a broken one (refused,
 *   one error line per gateway, the old supergraph serving on);
 * - a rolling restart of every process: SIGTERM (the pause, the drain, exit 0), started again, ready — one instance of
 *   each subgraph and one gateway at a time;
 * - a subgraph instance killed with SIGKILL.
 * What was measured is printed (requests per phase), and bench/README.md's fleet section quotes a run.
 *
 * PostgreSQL only (the embedded database is single-process), and only where HAProxy is installed (.ci/run installs it).
 */

const onPostgres = process.env.TEST_DATABASE === 'postgres';
const JWT_SECRET = 'fleet-test-secret-0123456789-0123456789';
const SUBGRAPHS = ['users', 'accounts', 'comments', 'media'] as const;
const ORIGINAL_DESCRIPTION = 'The professional account of an own-login token (GET /me on the own-login host).';
const NEW_DESCRIPTION = 'Reloaded in the fleet: the professional account of an own-login token.';
const REFUSED = 'supergraph refused: the one loaded before keeps serving';

/** A free TCP port on 127.0.0.1 (the OS's pick, released for the process that will listen on it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A process of the fleet: how to start it (again), and the one running now. */
interface Member {
  name: string;
  start(): Promise<ServiceProcess>;
  process: ServiceProcess;
}

interface Failure {
  operation: string;
  detail: string;
}

describe.runIf(onPostgres && haproxyAvailable())('a fleet behind HAProxy', () => {
  let throwaway: ThrowawayDatabase;
  let database: DatabaseHandle;
  let dir: string;
  let supergraphFile: string;
  let original: string;
  let haproxy: RunningHaproxy;
  let world: SocialFixture;
  let admin: string;
  let graphqlUrl: string;
  let restUrl: string;
  const members: Member[] = [];
  const gateways: Member[] = [];
  let userId: string;
  /** Makes each written e-mail address unique across the file's loads. */
  let sequence = 0;

  const common = () => ({
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    PUBLIC_HOST: '127.0.0.1',
    DATABASE_URL: throwaway.url,
    DATABASE_POOL_MAX: '3',
    JWT_SECRET,
    SOCIAL_CURSOR_SECRET: 'fleet-test-cursor-secret-0123456789-0123',
    PASSWORD_SCRYPT_LOG_N: '10',
    MEDIA_BLOB_DIR: join(dir, 'blobs'),
    SHUTDOWN_GRACE_MS: '10000',
  });

  const member = async (name: string, start: () => Promise<ServiceProcess>): Promise<Member> => {
    const entry: Member = { name, start, process: await start() };
    members.push(entry);
    return entry;
  };

  const replaceSupergraph = async (text: string) => {
    await writeFile(`${supergraphFile}.next`, text);
    await rename(`${supergraphFile}.next`, supergraphFile);
  };

  const ready = async (url: string) => {
    try {
      return (await fetch(new URL('/ready', url))).status === 200;
    } catch {
      return false;
    }
  };

  beforeAll(async () => {
    await ensureCompiledBuild();
    throwaway = await createThrowawayDatabase(process.env.DATABASE_URL!, 'tributary_fleet');
    database = await createDatabase({
      url: throwaway.url,
      pgliteDir: undefined,
      poolMax: 2,
      connectTimeoutMs: 5000,
      statementTimeoutMs: 10_000,
    });
    await migrateToLatest(database.db, ALL_MIGRATIONS);
    world = await createSocialFixture(database);
    dir = await mkdtemp(join(tmpdir(), 'tributary-fleet-'));
    supergraphFile = join(dir, 'supergraph.graphql');
    original = await readFile(SUPERGRAPH_FILE, 'utf8');
    await writeFile(supergraphFile, original);

    const instanceUrls: Record<string, string[]> = {};
    const subgraphStarts: Promise<Member>[] = [];
    for (const name of SUBGRAPHS) {
      instanceUrls[name] = [];
      for (const suffix of ['a', 'b']) {
        const port = await freePort();
        instanceUrls[name].push(`http://127.0.0.1:${port}/graphql`);
        // Longer than the gateways keep an idle connection (4 s, undici-subgraph-client.ts): none is left to close under a
        // mutation when the listener closes.
        const env = { ...common(), SUBGRAPH_PORT: String(port), SHUTDOWN_DELAY_MS: '5000', SUBGRAPH_USERS_GRPC: 'false' };
        subgraphStarts.push(
          member(`${name}-${suffix}`, () => startServiceProcess(`${name}-${suffix}`, 'dist/bin/start-subgraph.js', [name], env)),
        );
      }
    }
    await Promise.all(subgraphStarts);

    const frontends = {
      graphql: { port: await freePort(), servers: [] as string[] },
      rest: { port: await freePort(), servers: [] as string[] },
    };
    for (const [index, watch] of [
      ['1', 'true'],
      ['2', 'false'],
    ] as const) {
      const ports = { graphql: await freePort(), rest: await freePort(), parent: await freePort() };
      frontends.graphql.servers.push(`127.0.0.1:${ports.graphql}`);
      frontends.rest.servers.push(`127.0.0.1:${ports.rest}`);
      const env = {
        ...common(),
        GATEWAY_MODE: 'distributed',
        GATEWAY_PORT: String(ports.graphql),
        REST_PORT: String(ports.rest),
        SOCIAL_PARENT_PORT: String(ports.parent),
        // Longer than HAProxy needs to mark a gateway down (two failed checks 300 ms apart, each up to 2 s on a busy
        // machine): no request reaches a closing one.
        SHUTDOWN_DELAY_MS: '2500',
        SUPERGRAPH_FILE: supergraphFile,
        SUPERGRAPH_WATCH: watch,
        // Production otherwise: introspection shows which supergraph a gateway serves (a description the new file changes).
        GRAPHQL_INTROSPECTION: 'true',
        ...Object.fromEntries(SUBGRAPHS.map((name) => [`SUBGRAPH_${name.toUpperCase()}_URL`, instanceUrls[name]!.join(',')])),
      };
      gateways.push(await member(`gateway-${index}`, () => startServiceProcess(`gateway-${index}`, 'dist/bin/start-gateway.js', [], env)));
    }
    haproxy = await startHaproxy(dir, frontends, await freePort());
    graphqlUrl = `http://127.0.0.1:${frontends.graphql.port}/graphql`;
    restUrl = `http://127.0.0.1:${frontends.rest.port}`;
    await eventually(() => ready(restUrl), 'HAProxy and a gateway ready');
    admin = createTokenService(loadConfig({ JWT_SECRET }).jwt).mint({ sub: 'admin', roles: [ADMIN_ROLE] });
    const created = await graphql(CREATE, { input: validInput({ email: 'fleet-reader@example.com' }) });
    userId = created.body.data.createUserExample.id;
  }, 240_000);

  afterAll(async () => {
    await haproxy?.stop();
    await Promise.all(members.map((entry) => entry.process.stop('SIGKILL')));
    await database?.close();
    await throwaway?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function graphql(query: string, variables?: Record<string, unknown>, url = graphqlUrl) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ query, variables }),
    });
    const text = await response.text();
    let body: any;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body };
  }

  /** Four kinds of request, in a loop on each of `workers` connections, until stopped; every failure kept. */
  const startLoad = (workers = 4) => {
    let running = true;
    let requests = 0;
    let answered = 0;
    const failures: Failure[] = [];
    const check = async (operation: string, run: () => Promise<string | undefined>) => {
      requests += 1;
      try {
        const problem = await run();
        if (problem !== undefined) failures.push({ operation, detail: problem });
      } catch (error) {
        failures.push({ operation, detail: `${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}` });
      } finally {
        answered += 1;
      }
    };
    const operations = [
      () =>
        check('graphql read', async () => {
          const { status, body } = await graphql(GET, { id: userId });
          return status === 200 && !body.errors && body.data?.userExample?.id === userId
            ? undefined
            : `${status} ${JSON.stringify(body).slice(0, 300)}`;
        }),
      () =>
        check('graphql write', async () => {
          sequence += 1;
          const { status, body } = await graphql(CREATE, { input: validInput({ email: `fleet-${sequence}@example.com` }) });
          return status === 200 && !body.errors && body.data?.createUserExample?.id
            ? undefined
            : `${status} ${JSON.stringify(body).slice(0, 300)}`;
        }),
      () =>
        check('rest user read', async () => {
          const response = await fetch(new URL(`/api/v1/userExample/${userId}`, restUrl), {
            headers: { authorization: `Bearer ${admin}` },
          });
          const text = await response.text();
          return response.status === 200 && text.includes(`"id":"${userId}"`) ? undefined : `${response.status} ${text.slice(0, 300)}`;
        }),
      () =>
        check('rest social read', async () => {
          const fields = 'username,media.limit(2){comments.limit(1){text}}';
          const response = await fetch(new URL(`/v21.0/${world.accounts.bluebottle}?fields=${encodeURIComponent(fields)}`, restUrl), {
            headers: { authorization: `Bearer ${world.tokens.own}` },
          });
          const text = await response.text();
          return response.status === 200 && text.includes('"username"') && text.includes('"comments"') && !text.includes('"error"')
            ? undefined
            : `${response.status} ${text.slice(0, 300)}`;
        }),
    ];
    const worker = async (offset: number) => {
      for (let turn = offset; running; turn += 1) await operations[turn % operations.length]!();
    };
    const all = Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));
    return {
      /** Requests ended so far (answered or failed): the load's progress, which a test waits on instead of a pause. */
      ended: () => answered,
      stop: async () => {
        running = false;
        await all;
        return { requests, failures };
      },
    };
  };

  type Load = ReturnType<typeof startLoad>;

  /** Waits until `load` has ended `count` more requests (two a worker by default): the fleet served under load meanwhile. */
  const loadRuns = async (load: Load, what: string, count = 8) => {
    const from = load.ended();
    await eventually(() => load.ended() >= from + count, `${count} requests of the load ended ${what}`);
  };

  /** A gateway's samples of the metric `name` (Prometheus text on its /metrics): each one's labels and value. */
  const samples = async (gateway: Member, name: string) => {
    const text = await (await fetch(new URL('/metrics', String(gateway.process.listening.graphql)))).text();
    return text.split('\n').flatMap((line) => {
      const match = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
      return match?.[1] === name ? [{ labels: match[2]!, value: Number(match[3]) }] : [];
    });
  };
  /** The reloads a gateway found refused (reported or not: the same broken text is reported once). */
  const refusedReloads = async (gateway: Member) =>
    (await samples(gateway, 'tributary_supergraph_reloads_total')).find((sample) => sample.labels.includes('outcome="refused"'))?.value ??
    0;
  /** Whether a gateway fetches from every subgraph instance: none has its circuit open. */
  const everyInstanceTaken = async (gateway: Member) => {
    const open = (await samples(gateway, 'tributary_subgraph_instances')).filter((sample) => sample.labels.includes('circuit="open"'));
    return open.length === SUBGRAPHS.length && open.every((sample) => sample.value === 0);
  };

  const report = (phase: string, outcome: { requests: number; failures: Failure[] }) => {
    console.log(`fleet: ${phase}: ${outcome.requests} requests, ${outcome.failures.length} failed`);
  };

  const description = async (gateway: Member) => {
    const url = String(gateway.process.listening.graphql);
    const { body } = await graphql('{ __type(name: "Query") { fields { name description } } }', undefined, url);
    return (body.data?.__type?.fields as { name: string; description: string }[] | undefined)?.find((field) => field.name === 'me')
      ?.description;
  };

  const refusals = (gateway: Member) => gateway.process.logs().filter((entry) => entry.msg === REFUSED);

  it('reloads a changed supergraph (file watch and SIGHUP) and refuses a broken one under load: 0 failed requests', async () => {
    const [watching, signalled] = gateways as [Member, Member];
    const load = startLoad();
    await loadRuns(load, 'before the reloads');
    let outcome: Awaited<ReturnType<typeof load.stop>>;
    try {
      await reloadUnderLoad(watching, signalled, load);
    } finally {
      // Restarted processes read the file at start: leave it whole for the next tests, whatever happened here.
      await replaceSupergraph(original);
      outcome = await load.stop();
      report('supergraph reloads', outcome);
    }
    expect(outcome.failures).toEqual([]);
    expect(outcome.requests).toBeGreaterThan(20);
  });

  async function reloadUnderLoad(watching: Member, signalled: Member, load: Load) {
    await replaceSupergraph(original.replace(ORIGINAL_DESCRIPTION, NEW_DESCRIPTION));
    signalled.process.signal('SIGHUP');
    await eventually(() => watching.process.logs().some((entry) => entry.msg === 'supergraph reloaded'), 'the watching gateway reloaded');
    await eventually(
      () => signalled.process.logs().some((entry) => entry.msg === 'supergraph reloaded' && entry.trigger === 'signal'),
      'the signalled gateway reloaded',
    );
    await loadRuns(load, 'on the reloaded supergraph');

    await replaceSupergraph(original.replace('type Query', 'type Query {'));
    signalled.process.signal('SIGHUP');
    await eventually(() => refusals(watching).length === 1 && refusals(signalled).length === 1, 'both gateways refused the broken file');
    // Again, on both (a SIGHUP each): the same broken text is not reported twice. The event that the second reading is
    // done is the gateway's count of refused reloads (its metrics), one more than before the signal.
    const before = await Promise.all(gateways.map(refusedReloads));
    for (const gateway of gateways) gateway.process.signal('SIGHUP');
    await eventually(
      async () => (await Promise.all(gateways.map(refusedReloads))).every((count, index) => count >= before[index]! + 1),
      'both gateways read the broken file again (their refused reloads counted)',
    );
    for (const gateway of gateways) {
      expect(refusals(gateway)).toHaveLength(1);
      expect(refusals(gateway)[0]).toMatchObject({ level: 50, path: supergraphFile });
      // The supergraph loaded before the broken file serves on.
      expect(await description(gateway)).toBe(NEW_DESCRIPTION);
      expect((await graphql(GET, { id: userId }, String(gateway.process.listening.graphql))).body.data.userExample.id).toBe(userId);
    }
  }

  it('restarts every process in turn (SIGTERM, exit 0, started again) under load: 0 failed requests', async () => {
    const load = startLoad();
    await loadRuns(load, 'before the restarts');
    // Two waves: the four a's with the first gateway, then the b's with the second — one instance of each subgraph and
    // one gateway at a time, never both instances of anything down at once. Each wave's pauses (the drain delays, the
    // starts) overlap instead of following one another, which halves the test's length; the gateway that stays up
    // meanwhile must route around the subgraph instances that are down.
    const [firstGateway, secondGateway] = gateways as [Member, Member];
    const waves: Member[][] = [
      [...members.filter((entry) => entry.name.endsWith('-a')), firstGateway],
      [...members.filter((entry) => entry.name.endsWith('-b')), secondGateway],
    ];
    expect(
      waves
        .flat()
        .map((entry) => entry.name)
        .sort(),
    ).toEqual(members.map((entry) => entry.name).sort());
    let outcome: Awaited<ReturnType<typeof load.stop>>;
    try {
      await restartInWaves(waves, load);
    } finally {
      outcome = await load.stop();
      report('rolling restart of 10 processes', outcome);
    }
    expect(outcome.failures).toEqual([]);
    expect(outcome.requests).toBeGreaterThan(100);
  }, 240_000);

  async function restartInWaves(waves: Member[][], load: Load) {
    for (const wave of waves) {
      await Promise.all(
        wave.map(async (entry) => {
          const code = await entry.process.stop('SIGTERM');
          expect(code, `${entry.name} exit code`).toBe(0);
          entry.process = await entry.start();
          const url = String(entry.process.listening.url ?? entry.process.listening.rest);
          await eventually(() => ready(url), `${entry.name} ready again`);
        }),
      );
      // The next wave stops the other instances only once this one's are back in service: HAProxy has every gateway
      // up again in both backends (after two good checks), and every gateway fetches from every subgraph instance (no
      // circuit open).
      await eventually(
        async () => (await haproxy.servers()).every((server) => server.status === 'UP'),
        'HAProxy has every gateway up again',
      );
      await eventually(async () => (await Promise.all(gateways.map(everyInstanceTaken))).every(Boolean), 'every instance taken back');
      await loadRuns(load, `with ${wave.map((entry) => entry.name).join(', ')} back`);
    }
  }

  it('loses no request when a subgraph instance is killed (SIGKILL)', async () => {
    const load = startLoad();
    await loadRuns(load, 'before the kill');
    const victim = members.find((entry) => entry.name === 'comments-a')!;
    let outcome: Awaited<ReturnType<typeof load.stop>>;
    try {
      await victim.process.stop('SIGKILL');
      // pacing: the instance stays dead 1.5 s under load, the outage the gateways must route around
      await delay(1500);
      await loadRuns(load, 'with comments-a dead');
      victim.process = await victim.start();
      await eventually(() => ready(String(victim.process.listening.url)), 'the killed instance back');
      await eventually(async () => (await Promise.all(gateways.map(everyInstanceTaken))).every(Boolean), 'comments-a taken back');
      await loadRuns(load, 'with comments-a back');
    } finally {
      outcome = await load.stop();
      report('subgraph instance killed', outcome);
    }
    expect(outcome.failures).toEqual([]);
    expect(outcome.requests).toBeGreaterThan(20);
  }, 120_000);
});
