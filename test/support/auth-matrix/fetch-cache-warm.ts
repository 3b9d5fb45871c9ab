import { expect } from 'vitest';
import { createGraphqlClient, GET, LIST } from '../graphql-client.ts';
import { createRestClient } from '../rest-client.ts';
import type { TestSystem } from '../test-system.ts';
import { allBut, shown } from './matrix.ts';
import { SOCIAL_OPERATIONS, type SocialCell, type SocialCellOptions } from './social-cells.ts';
import { roasterToken, SB, SBB, strangerToken, type HostAccess, type SocialOperation, type Target } from './social-operations.ts';
import { actorToken, ALL_OWN, ALL_PARENT, type Host, type SocialWorld, type TokenSpec } from './social-world.ts';
import type { UserMatrixOptions } from './user-records.ts';

/**
 * The auth matrix with the gateway's fetch cache on and warm (issue 39): before each cell the data it asks for is read
 * through the gateway by a more privileged viewer and then by less privileged ones, so that the cache holds other
 * viewers' entries for exactly that data when the cell runs. Each cell's expectations stay the cache-off run's: a cell
 * that now answers differently is a reply served to a viewer it was not made for, or a stale one.
 *
 * The warm-up goes through GraphQL on the gateway (the cacheable path) and, for a REST door's cell, through the same REST
 * request too: the REST adapter runs its own documents through the gateway, and only the same subgraph fetch can be
 * served from the same entry. gRPC (Area A) does not pass the gateway; its cells are warmed through GraphQL all the same.
 * A write is never sent as a warm-up: a write's cell is warmed with the reads of the objects it names.
 */

/** The fetch cache's lookups so far, summed over the processes /metrics reports (the embedded system is one). */
export interface CacheLookups {
  hit: number;
  miss: number;
  shared: number;
}

/** Reads the gateway's /metrics: the fetch cache's lookups by result (throws when the cache reports none: it is off). */
export async function cacheLookups(system: TestSystem): Promise<CacheLookups> {
  const response = await fetch(system.gatewayUrl.replace(/\/graphql$/, '/metrics'));
  const text = await response.text();
  const count = (result: keyof CacheLookups) => {
    const lines = [...text.matchAll(new RegExp(`^tributary_gateway_cache_lookups_total\\{([^}]*)\\} (\\d+)$`, 'gm'))].filter((line) =>
      line[1]!.split(',').includes(`result="${result}"`),
    );
    if (lines.length === 0) throw new Error(`no tributary_gateway_cache_lookups_total{result="${result}"} in /metrics: is the cache on?`);
    return lines.reduce((sum, line) => sum + Number(line[2]), 0);
  };
  return { hit: count('hit'), miss: count('miss'), shared: count('shared') };
}

/** How many warm-up requests a file sent (for its report). */
export interface WarmStats {
  requests: number;
}

/** What a file asserts once its cells ran: the warm-up did fill the cache, and entries were served from it. */
export async function expectWarmCache(system: TestSystem, before: CacheLookups, stats: WarmStats, label: string): Promise<CacheLookups> {
  const after = await cacheLookups(system);
  const grown = { hit: after.hit - before.hit, miss: after.miss - before.miss, shared: after.shared - before.shared };
  console.info(`${label}: ${stats.requests} warm-up requests; fetch-cache lookups during the run ${JSON.stringify(grown)}`);
  expect(stats.requests, 'no warm-up request was sent').toBeGreaterThan(0);
  expect(grown.miss, 'nothing was looked up in the fetch cache (misses)').toBeGreaterThan(0);
  expect(grown.hit, 'nothing was served from the fetch cache (hits)').toBeGreaterThan(0);
  return grown;
}

// ---------------------------------------------------------------------------------------------------------------------
// Area A (user records)

/**
 * The warm-up of Area A's cells: the record the cell names (GetByID and List by its id; for Create, the list by the
 * e-mail it will create, which the refused create's check reads again) read by an administrator, then by a user with
 * a role that grants nothing here (editor) and by another user, neither of them its owner.
 */
export function userWarmUp(system: TestSystem, stats: WarmStats): Required<UserMatrixOptions> {
  const gql = createGraphqlClient(system.gatewayUrl);
  const rest = createRestClient(system.restUrl);
  return {
    async beforeEachCell(cell, ctx) {
      const viewers = [
        system.adminToken(),
        system.tokens.mint({ sub: `${ctx.id}7`, roles: ['editor'] }),
        system.userToken(String(BigInt(ctx.id) + 2n)),
      ];
      const reads: { query: string; variables: Record<string, unknown>; rest: [string, string, unknown] }[] =
        cell.op === 'Create'
          ? [
              {
                query: LIST,
                variables: { params: { columns: [{ name: 'email', value: ctx.user.email }] } },
                rest: ['POST', '/api/v1/userExample/list', { params: { columns: [{ name: 'email', value: ctx.user.email }] } }],
              },
            ]
          : [
              { query: GET, variables: { id: ctx.id }, rest: ['GET', `/api/v1/userExample/${ctx.id}`, undefined] },
              {
                query: LIST,
                variables: { params: { columns: [{ name: 'id', value: ctx.id }] } },
                rest: ['POST', '/api/v1/userExample/list', { params: { columns: [{ name: 'id', value: ctx.id }] } }],
              },
            ];
      for (const token of viewers) {
        for (const read of reads) {
          // Every signed-in user reads every record (README): each warm-up read is allowed.
          const reply = await gql.request(read.query, { variables: read.variables, token });
          stats.requests += 1;
          expect(reply.errors, `warm-up read (GraphQL): ${shown(reply.status, reply.text)}`).toBeUndefined();
          if (cell.door === 'REST') {
            const [method, path, json] = read.rest;
            const restReply = await rest.request(method, path, { token, ...(json !== undefined && { json }) });
            stats.requests += 1;
            expect(restReply.status, `warm-up read (REST): ${shown(restReply.status, restReply.text)}`).toBe(200);
          }
        }
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// The social graph (Areas B and C, and the container cells of Area D)

/**
 * The reads of the objects a write names (a write is never sent as a warm-up): every write of the table has its entry,
 * so that a write added to the table without one fails its cells here instead of running cold.
 */
const READS_OF_WRITE: Readonly<Record<string, readonly string[]>> = {
  'comment.hide': ['comment.read', 'replies.list'],
  'comment.delete': ['comment.read', 'replies.list'],
  'replies.create': ['replies.list', 'comment.read'],
  'media.comments.create': ['media.comments.list'],
  'account.media.create': ['account.media', 'account.read'],
  // Area D's container cells (media-upload.ts): a container made from an upload on bluebottle's account.
  'account.media.create.upload': ['account.media', 'account.read'],
  'account.media_publish': ['account.media', 'container.read'],
  'account.upcoming_events.create': ['account.upcoming_events'],
  'account.authorized_adaccounts.create': ['account.authorized_adaccounts'],
  'account.mentions': ['account.mentioned_comment', 'account.tags'],
  'app.subscriptions.create': ['app.subscriptions.read'],
  'app.subscriptions.delete': ['app.subscriptions.read'],
  'me.subscribed_apps.create': ['me.subscribed_apps.read'],
  'me.subscribed_apps.delete': ['me.subscribed_apps.read'],
  'page.subscribed_apps.create': ['page.subscribed_apps.read'],
  'page.subscribed_apps.delete': ['page.subscribed_apps.read'],
};

const OPERATIONS_BY_KEY = new Map(SOCIAL_OPERATIONS.map((op) => [op.key, op]));

/** A read of the warm-up: the operation, and the objects it is sent for. */
interface WarmRead {
  op: SocialOperation;
  target: Target;
}

/** The reads of the cell's data: its own request when it reads, else the reads of the objects its write names. */
async function readsOf(world: SocialWorld, cell: SocialCell, target: Target): Promise<WarmRead[]> {
  const { host } = cell.door;
  if (cell.op.reads) return [{ op: cell.op, target }];
  const keys = READS_OF_WRITE[cell.op.key];
  if (!keys) throw new Error(`the cached auth matrix has no warm-up reads for the write ${cell.op.key} (fetch-cache-warm.ts)`);
  const reads: WarmRead[] = [];
  for (const key of keys) {
    const op = OPERATIONS_BY_KEY.get(key);
    if (!op) throw new Error(`warm-up read ${key} of ${cell.op.key} is not in the table`);
    // A read that does not exist on this host reads nothing here.
    if (op[host].kind === 'absent' || op[host].kind === 'not-on-host') continue;
    // The read's own objects, with those the write names in their place (the fresh comment, the fresh container…).
    reads.push({ op, target: { ...(await op.target(world, host)), ...target } });
  }
  return reads;
}

/**
 * The warm-up's viewers of a read on a host, the more privileged first: the door's actor with every permission (the
 * matrix app, where the app's own token is the credential); then the actor with fewer permissions — without the last
 * group the read needs, so that it is refused, or with the basic permission alone where it needs none — and another
 * account (roaster; stranger, who has no role on bluebottle's page), or, for an app's own data, another app and a user.
 */
function viewersOf(access: HostAccess, host: Host): TokenSpec[] {
  if (access.kind === 'app-token') return [{ kind: 'app', app: 'matrix' }, { kind: 'app', app: 'other' }, actorToken(host)];
  const needed = access.kind === 'rule' ? access.rule.permissions : [];
  const fewer = needed.length > 0 ? allBut(host === 'own' ? ALL_OWN : ALL_PARENT, needed.at(-1)!) : [host === 'own' ? SBB : SB];
  const lessPrivileged: TokenSpec =
    host === 'own'
      ? { kind: 'grant', login: 'own', subject: 'bluebottle', permissions: fewer }
      : { kind: 'grant', login: 'parent', subject: 'ana', permissions: fewer };
  return [actorToken(host), lessPrivileged, host === 'own' ? roasterToken : strangerToken];
}

/**
 * The social cells' warm-up (SocialCellOptions.beforeEachCell): each read of the cell's data by each viewer in turn
 * (viewersOf), through GraphQL and, on a REST door, through the door's own REST request. Refusals among them are
 * expected (the less privileged viewers'); only what the cell then answers is checked.
 */
export function socialWarmUp(stats: WarmStats): Required<SocialCellOptions> {
  return {
    async beforeEachCell(world, cell, target) {
      const { host, transport } = cell.door;
      const gql = createGraphqlClient(world.system.gatewayUrl);
      const rest = createRestClient(host === 'own' ? world.system.restUrl : world.system.socialParentUrl);
      for (const read of await readsOf(world, cell, target)) {
        for (const viewer of viewersOf(read.op[host], host)) {
          const credential = await world.credential(viewer);
          const call = read.op.graphql(read.target, host);
          const reply = await gql.request(call.query, { variables: call.variables, token: credential.token! });
          stats.requests += 1;
          expect(reply.status, `warm-up read (GraphQL): ${shown(reply.status, reply.text)}`).toBe(200);
          if (transport !== 'rest') continue;
          const restCall = read.op.rest(read.target, host);
          if (restCall.method !== 'GET') throw new Error(`warm-up read ${read.op.key} is not a GET`);
          const query = new URLSearchParams(restCall.params ?? {});
          query.set('access_token', credential.token!);
          const restReply = await rest.request('GET', `${restCall.path}?${query}`);
          stats.requests += 1;
          expect(restReply.status, `warm-up read (REST): ${shown(restReply.status, restReply.text)}`).toBeLessThan(500);
        }
      }
    },
  };
}
