import { expect } from 'vitest';
import { createGraphqlClient, GET, LIST } from '../graphql-client.ts';
import { createRestClient } from '../rest-client.ts';
import type { TestSystem } from '../test-system.ts';
import { allBut, shown } from './matrix.ts';
import { SOCIAL_OPERATIONS, type SocialCell, type SocialCellOptions } from './social-cells.ts';
import { roasterToken, strangerToken, type HostRule, type Target } from './social-operations.ts';
import { actorToken, ALL_OWN, ALL_PARENT, type Host, type SocialWorld, type TokenSpec } from './social-world.ts';
import type { UserCell, UserMatrix, UserMatrixOptions } from './user-records.ts';

/**
 * The auth matrix with the gateway's fetch cache on and warm (issue 39): before each cell that can be answered from the
 * cache, the data it asks for is read through the gateway by a more privileged viewer and then by less privileged ones,
 * so that the cache holds other viewers' entries for exactly that data when the cell runs. Each cell's expectations stay
 * the cache-off run's: a cell that now answers differently is a reply served to a viewer it was not made for, or a stale
 * one.
 *
 * The warm-up goes through GraphQL on the gateway (the cacheable path) and, for a REST door's cell, through the same REST
 * request too: the REST adapter runs its own documents through the gateway, and only the same subgraph fetch can be
 * served from the same entry. gRPC (Area A) does not pass the gateway; its cells are warmed through GraphQL all the same.
 * A write is never sent as a warm-up.
 *
 * Only cells whose request can reach a fetch the cache keeps are warmed (Area A: all of them; the social graph: see
 * SOCIAL_CACHEABLE_READS; Area D: none, and its cached run proves it, see expectNothingCached). Every other cell runs
 * with the cache on but cold: its reply is never kept, so with the cache on it is the cache-off reply by construction,
 * and a warm-up before it would only fill the cache with entries that cell cannot be served from.
 */

/** The fetch cache's lookups so far, summed over the processes /metrics reports (the embedded system is one). */
export interface CacheLookups {
  hit: number;
  miss: number;
  shared: number;
}

const metricsText = async (system: TestSystem): Promise<string> =>
  (await fetch(system.gatewayUrl.replace(/\/graphql$/, '/metrics'))).text();

/** Reads the gateway's /metrics: the fetch cache's lookups by result (throws when the cache reports none: it is off). */
export async function cacheLookups(system: TestSystem): Promise<CacheLookups> {
  const text = await metricsText(system);
  const count = (result: keyof CacheLookups) => {
    const lines = [...text.matchAll(new RegExp(`^tributary_gateway_cache_lookups_total\\{([^}]*)\\} (\\d+)$`, 'gm'))].filter((line) =>
      line[1]!.split(',').includes(`result="${result}"`),
    );
    if (lines.length === 0) throw new Error(`no tributary_gateway_cache_lookups_total{result="${result}"} in /metrics: is the cache on?`);
    return lines.reduce((sum, line) => sum + Number(line[2]), 0);
  };
  return { hit: count('hit'), miss: count('miss'), shared: count('shared') };
}

/** The entries the fetch cache holds now, summed over the processes /metrics reports (throws when it reports none). */
async function cacheEntries(system: TestSystem): Promise<number> {
  const lines = [...(await metricsText(system)).matchAll(/^tributary_gateway_cache_entries(?:\{[^}]*\})? (\d+)$/gm)];
  if (lines.length === 0) throw new Error('no tributary_gateway_cache_entries in /metrics: is the cache on?');
  return lines.reduce((sum, line) => sum + Number(line[1]), 0);
}

/** How many cells a file warmed and how many warm-up requests it sent (for its report). */
export interface WarmStats {
  cells: number;
  requests: number;
}

/** What a file asserts once its cells ran: the warm-up did fill the cache, and entries were served from it. */
export async function expectWarmCache(system: TestSystem, before: CacheLookups, stats: WarmStats, label: string): Promise<CacheLookups> {
  const after = await cacheLookups(system);
  const grown = { hit: after.hit - before.hit, miss: after.miss - before.miss, shared: after.shared - before.shared };
  const text = await metricsText(system);
  const evictions = [...text.matchAll(/^tributary_gateway_cache_evictions_total\{([^}]*)\} (\d+)$/gm)].map(
    (line) => `${line[1]} ${line[2]}`,
  );
  console.info(
    `${label}: ${stats.cells} cells warmed with ${stats.requests} warm-up requests; fetch-cache lookups during the run ` +
      `${JSON.stringify(grown)}; evictions so far: ${evictions.join('; ')}`,
  );
  expect(stats.requests, 'no warm-up request was sent').toBeGreaterThan(0);
  expect(grown.miss, 'nothing was looked up in the fetch cache (misses)').toBeGreaterThan(0);
  expect(grown.hit, 'nothing was served from the fetch cache (hits)').toBeGreaterThan(0);
  return grown;
}

/** Where a run that the cache must leave alone started: its lookups and the entries it held (nothingCachedFrom). */
export interface CacheState {
  lookups: CacheLookups;
  entries: number;
}

export async function cacheState(system: TestSystem): Promise<CacheState> {
  return { lookups: await cacheLookups(system), entries: await cacheEntries(system) };
}

/**
 * What a cached run with nothing to warm asserts once its cells ran: none of their fetches was even looked up in the
 * cache (a write is never looked up, and a read without a max age is not cacheable), and the cache holds no more entries
 * than before — so no cell's answer can have come from it, and a warm-up could not have changed any of them.
 */
export async function expectNothingCached(system: TestSystem, before: CacheState, label: string): Promise<void> {
  const after = await cacheState(system);
  const grown = {
    hit: after.lookups.hit - before.lookups.hit,
    miss: after.lookups.miss - before.lookups.miss,
    shared: after.lookups.shared - before.lookups.shared,
    entries: after.entries - before.entries,
  };
  console.info(`${label}: fetch-cache lookups and entries made during the run ${JSON.stringify(grown)}`);
  expect(grown, 'a fetch of the run was looked up in the fetch cache, or kept in it').toEqual({ hit: 0, miss: 0, shared: 0, entries: 0 });
}

// ---------------------------------------------------------------------------------------------------------------------
// Area A (user records)

/** Area A's warm-up, and the reads that follow an allowed write (see userWarmUp). */
export interface UserWarmUp extends Required<UserMatrixOptions> {
  /** After the cell passed: an allowed write is in the next read of the data the warm-up put in the cache. */
  afterEachCell(cell: UserCell): Promise<void>;
}

type UserWarmContext = Parameters<Required<UserMatrixOptions>['beforeEachCell']>[1];

/** A read of Area A's warm-up, through GraphQL and the REST route of the same read. */
interface UserRead {
  query: string;
  variables: Record<string, unknown>;
  rest: [method: string, path: string, json: unknown];
}

const listBy = (column: 'id' | 'email', value: string): UserRead => {
  const params = { columns: [{ name: column, value }] };
  return { query: LIST, variables: { params }, rest: ['POST', '/api/v1/userExample/list', { params }] };
};
const getById = (id: string): UserRead => ({ query: GET, variables: { id }, rest: ['GET', `/api/v1/userExample/${id}`, undefined] });

/**
 * The warm-up of Area A's cells: the record the cell names (GetByID and List by its id; for Create, the list by the
 * e-mail it will create, which the refused create's check reads again) read by an administrator, then by a user with
 * a role that grants nothing here (editor) and by another user, neither of them its owner — through GraphQL, and on
 * the REST door through its REST routes too. The users subgraph keys every signed-in reader alike (every one reads every
 * record), so these entries are the very ones the cell's own reads are served from.
 *
 * And after an allowed write, the same reads again, by the same viewers: the change is in them (updated, gone, or
 * created), not the entry the warm-up left — the answer the cache-off run gives them.
 */
export function userWarmUp(system: TestSystem, stats: WarmStats): UserWarmUp {
  const gql = createGraphqlClient(system.gatewayUrl);
  const rest = createRestClient(system.restUrl);
  const contexts = new Map<UserCell, UserWarmContext>();
  const viewersOf = (ctx: UserWarmContext) => [
    system.adminToken(),
    system.tokens.mint({ sub: `${ctx.id}7`, roles: ['editor'] }),
    system.userToken(String(BigInt(ctx.id) + 2n)),
  ];
  const readsOf = (cell: UserCell, ctx: UserWarmContext) =>
    cell.op === 'Create' ? [listBy('email', ctx.user.email)] : [getById(ctx.id), listBy('id', ctx.id)];

  /** Each read by each viewer, through GraphQL and (REST door) REST; `check` sees every reply's data and errors. */
  async function readAll(cell: UserCell, ctx: UserWarmContext, check: (read: UserRead, data: any, errors: unknown, text: string) => void) {
    for (const token of viewersOf(ctx)) {
      for (const read of readsOf(cell, ctx)) {
        const reply = await gql.request(read.query, { variables: read.variables, token });
        stats.requests += 1;
        // As the REST routes render them: { userExample } for a read, { total, userExamples } for a list.
        const data = read.query === GET ? reply.data : reply.data?.userExamples;
        check(read, data, reply.errors, `GraphQL ${shown(reply.status, reply.text)}`);
        if (cell.door !== 'REST') continue;
        const [method, path, json] = read.rest;
        const restReply = await rest.request(method, path, { token, ...(json !== undefined && { json }) });
        stats.requests += 1;
        const restData = read.query === GET && restReply.status !== 200 ? { userExample: null } : restReply.body;
        check(read, restData, restReply.status === 200 ? undefined : restReply.body, `REST ${shown(restReply.status, restReply.text)}`);
      }
    }
  }

  return {
    async beforeEachCell(cell, ctx) {
      contexts.set(cell, ctx);
      stats.cells += 1;
      // Every signed-in user reads every record (README): each warm-up read is allowed.
      await readAll(cell, ctx, (_read, _data, errors, text) => expect(errors, `warm-up read: ${text}`).toBeUndefined());
    },
    async afterEachCell(cell) {
      const ctx = contexts.get(cell);
      contexts.delete(cell);
      if (!ctx || cell.expected.kind !== 'allowed') return;
      if (cell.op === 'UpdateByID') {
        await readAll(cell, ctx, (read, data, errors, text) => {
          expect(errors, `read after the update: ${text}`).toBeUndefined();
          const record = read.query === GET ? data.userExample : data.userExamples[0];
          expect(record?.name, `the read after the update is not the updated record: ${text}`).toBe('Hijacked');
        });
      } else if (cell.op === 'DeleteByID') {
        await readAll(cell, ctx, (read, data, errors, text) => {
          if (read.query === GET) {
            expect(data.userExample, `the read after the delete still shows the record: ${text}`).toBeNull();
            expect(errors, `the read after the delete: ${text}`).toBeDefined();
          } else {
            expect(data.total, `the list after the delete still counts the record: ${text}`).toBe('0');
          }
        });
      } else if (cell.op === 'Create') {
        await readAll(cell, ctx, (_read, data, errors, text) => {
          expect(errors, `the list after the create: ${text}`).toBeUndefined();
          expect(data.total, `the list after the create does not count the new record: ${text}`).toBe('1');
        });
      }
    },
  };
}

/** Area A's runner with the warm-up's checks after each cell (the cells themselves are the matrix's, unchanged). */
export function withUserAfterChecks(matrix: UserMatrix, warmUp: UserWarmUp): UserMatrix {
  return {
    close: () => matrix.close(),
    async run(cell) {
      await matrix.run(cell);
      await warmUp.afterEachCell(cell);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// The social graph (Areas B and C)

/**
 * The social reads whose request reaches a subgraph fetch the cache may keep, by operation key. Every social root field
 * (accounts, comments, webhooks) is a social call: its reply carries the call's rate-limit usage
 * (`extensions.socialUsage`), and a reply with extensions is never kept (gateway/in-process-data-source.ts). What is left
 * are the comments subgraph's fields on the accounts subgraph's objects, fetched as `_entities` after the root call, which
 * no rate limit counts: `Media.comments` (both hosts; GET /{media}/comments runs the same selection) and
 * `Account.mentionedComment` (parent-platform host; GET /{account}?fields=mentioned_comment… on REST). On the own-login
 * host mentionedComment does not exist (the comments subgraph refuses it, and a reply with errors is never kept).
 *
 * The cells of every other operation are not warmed: a read's reply is never kept, so it is fetched afresh for every
 * viewer and the cached run's answer is the uncached one by construction; a write is never looked up in the cache
 * (its reply only waits for its changes to be applied, with or without entries), and none of the table's writes selects
 * these fields in its reply. A read added to the table that selects them must be named here to be warmed.
 */
const SOCIAL_CACHEABLE_READS: ReadonlySet<string> = new Set(['media.comments.list', 'account.mentioned_comment']);

for (const key of SOCIAL_CACHEABLE_READS) {
  if (!SOCIAL_OPERATIONS.some((op) => op.key === key && op.reads))
    throw new Error(`cacheable read ${key} is not a read of the social table (fetch-cache-warm.ts)`);
}

/**
 * The rule of the cell's read when its request can be answered from the fetch cache (SOCIAL_CACHEABLE_READS, on a host
 * where the read exists): the cells that are warmed.
 */
function cacheableRead(cell: SocialCell): HostRule | undefined {
  const access = cell.op[cell.door.host];
  return SOCIAL_CACHEABLE_READS.has(cell.op.key) && access.kind === 'rule' ? access.rule : undefined;
}

/**
 * The warm-up's viewers of a read on a host, the more privileged first: the door's actor with every permission; then
 * less privileged ones — the actor with only the permissions the read needs (still allowed, but another viewer), the
 * actor without the last group of them (refused; with no permission at all where the read needs none), and another
 * account (roaster; stranger, who has no role on bluebottle's page).
 */
function viewersOf(rule: HostRule, host: Host): TokenSpec[] {
  const grant = (permissions: readonly string[]): TokenSpec =>
    host === 'own'
      ? { kind: 'grant', login: 'own', subject: 'bluebottle', permissions }
      : { kind: 'grant', login: 'parent', subject: 'ana', permissions };
  const all = host === 'own' ? ALL_OWN : ALL_PARENT;
  const needed = rule.permissions;
  const lessPrivileged = needed.length > 0 ? [grant([...new Set(needed.flat())]), grant(allBut(all, needed.at(-1)!))] : [grant([])];
  return [actorToken(host), ...lessPrivileged, host === 'own' ? roasterToken : strangerToken];
}

/** Reads the cell's own request for `target` as each viewer of `rule` in turn: GraphQL, and REST too on a REST door. */
async function warmRead(world: SocialWorld, cell: SocialCell, rule: HostRule, target: Target, stats: WarmStats): Promise<void> {
  const { op } = cell;
  const { host, transport } = cell.door;
  const gql = createGraphqlClient(world.system.gatewayUrl);
  const rest = createRestClient(host === 'own' ? world.system.restUrl : world.system.socialParentUrl);
  for (const viewer of viewersOf(rule, host)) {
    const credential = await world.credential(viewer);
    const call = op.graphql(target, host);
    const reply = await gql.request(call.query, { variables: call.variables, token: credential.token! });
    stats.requests += 1;
    expect(reply.status, `warm-up read (GraphQL): ${shown(reply.status, reply.text)}`).toBe(200);
    if (transport !== 'rest') continue;
    const restCall = op.rest(target, host);
    if (restCall.method !== 'GET') throw new Error(`warm-up read ${op.key} is not a GET`);
    const query = new URLSearchParams(restCall.params ?? {});
    query.set('access_token', credential.token!);
    const restReply = await rest.request('GET', `${restCall.path}?${query}`);
    stats.requests += 1;
    expect(restReply.status, `warm-up read (REST): ${shown(restReply.status, restReply.text)}`).toBeLessThan(500);
  }
}

/**
 * The social cells' warm-up (SocialCellOptions.beforeEachCell): for a cell whose request can be served from the cache
 * (cacheableRead), its own read of its objects by each viewer in turn (viewersOf), through GraphQL and, on a
 * REST door, through the door's own REST request; other cells run cold (SOCIAL_CACHEABLE_READS says why). Refusals among
 * the warm-up's replies are expected (the less privileged viewers'); only what the cell then answers is checked.
 *
 * Area D has no warm-up: an upload and a container made from one are writes, and the upload's status is never kept
 * (maxAge 0, subgraphs/media/schema.graphql has no other hint) — media-upload.cached.test.ts asserts that its cells are
 * never looked up in the cache at all (expectNothingCached) instead.
 */
export function socialWarmUp(stats: WarmStats): Required<SocialCellOptions> {
  return {
    async beforeEachCell(world, cell, target) {
      const rule = cacheableRead(cell);
      if (!rule) return;
      stats.cells += 1;
      await warmRead(world, cell, rule, target, stats);
    },
  };
}
