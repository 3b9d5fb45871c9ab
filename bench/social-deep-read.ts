import type { IncomingMessage, ServerResponse } from 'node:http';
import { sql, type Kysely } from 'kysely';
import type { DatabaseHandle } from '../lib/database/database.ts';
import { formatGraphTimestamp } from '../lib/social-graph/graph-time.ts';
import { createSocialTokens } from '../subgraphs/index.ts';
import { createSocialGraphBuilder } from '../subgraphs/shared/social-graph/social-graph-builder.ts';
import type { SocialTables } from '../subgraphs/shared/social-graph/social-tables.ts';

/**
 * The deep read of issue 3's bench: an account with `media.limit(25){comments.limit(25){replies{text,username}}}`. This
 * module seeds the graph it reads (25 posts × 25 comments × 2 replies) and serves the baseline: the same reads as
 * hand-written SQL (three statements: media page, windowed comments, windowed replies) and JSON.stringify, with no auth,
 * GraphQL, federation or Graph rendering — the floor the product's REST and GraphQL paths are compared against.
 */

export const DEEP_FIELDS = 'id,username,media.limit(25){id,caption,comments.limit(25){id,text,username,replies{text,username}}}';

export const DEEP_QUERY = `query Deep($id: ID!) { account(id: $id) { id username media(first: 25) { nodes { id caption
  comments(first: 25) { nodes { id text username replies { nodes { text username } } } } } } } }`;

export interface DeepReadFixture {
  /** The first owner's account and token (the bench server's deep read, the subscriptions' account). */
  accountId: string;
  token: string;
  /** Every seeded owner, each with its own token: loads that read a different account per caller (issue 38). */
  owners: { accountId: string; token: string }[];
}

const POSTS = 25;
const COMMENTS = 25;
const REPLIES = 2;

/** Seeds `accounts` owners (1 by default), each with 25 posts × 25 comments of one fan × 2 replies of its own. */
export async function seedDeepRead(database: DatabaseHandle, { accounts = 1 }: { accounts?: number } = {}): Promise<DeepReadFixture> {
  const db = database.db.withTables<SocialTables>();
  const g = createSocialGraphBuilder(db);
  const fan = await g.account({ username: 'bench_fan', accountType: 'PERSONAL' });
  const base = Date.now() - 30 * 24 * 3_600_000;
  const tokens = createSocialTokens(database);
  const owners: DeepReadFixture['owners'] = [];
  const posts: string[] = [];
  for (let a = 0; a < accounts; a++) {
    const suffix = a === 0 ? '' : `_${a + 1}`;
    const accountId = await g.account({ username: `bench_owner${suffix}`, name: `Bench Owner${suffix.replace('_', ' ')}` });
    for (let i = 0; i < POSTS; i++)
      posts.push(await g.media(accountId, { caption: `Bench post ${i}`, timestamp: new Date(base - i * 3_600_000) }));
    const token = await tokens.issue({
      loginType: 'own',
      subjectId: accountId,
      permissions: ['social_business_basic', 'social_business_manage_comments'],
      expiresInSeconds: 24 * 3600,
    });
    owners.push({ accountId, token });
  }
  await sql`
    insert into social.comment (media_id, author_id, text, timestamp)
    select p.id::bigint, ${fan}::bigint, 'comment ' || n, to_timestamp(${Math.floor(base / 1000)}) + (n || ' minutes')::interval
    from unnest(${posts}::text[]) as p(id), generate_series(1, ${COMMENTS}) as n`.execute(db);
  for (let round = 1; round <= REPLIES; round++) {
    // Each reply by the post's owner, as one account's replies on its own posts are.
    await sql`
      insert into social.comment (media_id, author_id, parent_id, text, timestamp)
      select c.media_id, m.owner_id, c.id, 'reply ' || ${round}, c.timestamp + (${round} || ' seconds')::interval
      from social.comment c join social.media m on m.id = c.media_id
      where c.parent_id is null and c.media_id = any(${posts}::bigint[])`.execute(db);
  }
  // Statistics for the rows just written, as a database in service has them (autovacuum's analyze would come within a
  // minute or so, in the middle of the measurements): without them the planner takes the 1,875 comments for a handful
  // and joins them by nested loops — 8 ms of database CPU for the replies page instead of 2 — for Tributary's statements
  // and the baseline's alike.
  await sql`analyze social.account, social.media, social.comment`.execute(db);
  return { ...owners[0]!, owners };
}

interface Row {
  id: string;
  parent: string;
  text: string;
  username: string;
  timestamp: Date;
}

/** The same data as the deep read, by hand: three statements, grouped in memory, JSON out. */
export async function deepRead(db: Kysely<SocialTables>, accountId: string): Promise<unknown> {
  const account = await db.selectFrom('social.account').select(['id', 'username']).where('id', '=', accountId).executeTakeFirst();
  if (!account) return undefined;
  const media = await db
    .selectFrom('social.media')
    .select(['id', 'caption', 'timestamp'])
    .where('owner_id', '=', accountId)
    .where('deleted_at', 'is', null)
    .where('media_product_type', '<>', 'STORY')
    .orderBy('timestamp', 'desc')
    .orderBy('id', 'desc')
    .limit(25)
    .execute();
  const mediaIds = media.map((m) => String(m.id));
  const comments = (
    await sql<Row>`select * from (
      select c.id, c.media_id as parent, c.text, a.username, c.timestamp,
        row_number() over (partition by c.media_id order by c.timestamp desc, c.id desc) as rn
      from social.comment c join social.account a on a.id = c.author_id
      where c.media_id = any(${mediaIds}::bigint[]) and c.parent_id is null and c.deleted_at is null) t
    where rn <= 25`.execute(db)
  ).rows;
  const replies = (
    await sql<Row>`select * from (
      select c.id, c.parent_id as parent, c.text, a.username, c.timestamp,
        row_number() over (partition by c.parent_id order by c.timestamp, c.id) as rn
      from social.comment c join social.account a on a.id = c.author_id
      where c.parent_id = any(${comments.map((c) => String(c.id))}::bigint[]) and c.deleted_at is null) t
    where rn <= 25`.execute(db)
  ).rows;
  const group = (rows: Row[]) => {
    const byParent = new Map<string, Row[]>();
    for (const row of rows) byParent.set(String(row.parent), [...(byParent.get(String(row.parent)) ?? []), row]);
    return byParent;
  };
  const commentsByMedia = group(comments);
  const repliesByComment = group(replies);
  return {
    id: String(account.id),
    username: account.username,
    media: {
      data: media.map((m) => ({
        id: String(m.id),
        caption: m.caption,
        comments: {
          data: (commentsByMedia.get(String(m.id)) ?? []).map((c) => ({
            id: String(c.id),
            text: c.text,
            username: c.username,
            timestamp: formatGraphTimestamp(c.timestamp),
            replies: {
              data: (repliesByComment.get(String(c.id)) ?? []).map((r) => ({ text: r.text, username: r.username, id: String(r.id) })),
            },
          })),
        },
      })),
    },
  };
}

/** Serves GET /deep/<account id> with the hand-written reads (the deep read's baseline). */
export function deepReadBaseline(database: DatabaseHandle) {
  const db = database.db.withTables<SocialTables>();
  const path = /^\/deep\/(\d{1,20})$/;
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const match = path.exec(req.url ?? '');
    if (req.method !== 'GET' || !match) return false;
    deepRead(db, match[1]!).then(
      (body) => {
        if (body === undefined) res.writeHead(404).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      },
      (error: unknown) => {
        res.writeHead(500).end(String(error));
      },
    );
    return true;
  };
}
