import { describe, expect, it } from 'vitest';
import { createGraphqlClient } from '../graphql-client.ts';
import { createRestClient } from '../rest-client.ts';
import { cellName, expectShows, shown, allBut, type NotApplicableCell } from './matrix.ts';
import { ACCOUNT_OPERATIONS } from './social-account-operations.ts';
import { COMMENT_OPERATIONS } from './social-comment-operations.ts';
import { WEBHOOK_OPERATIONS } from './social-webhook-operations.ts';
import { expectGraphqlRefusal, expectGraphRefusal, outcomeLabel, type SocialErrorSpec } from './social-errors.ts';
import type { HostRule, SocialOperation, Target, Transport } from './social-operations.ts';
import { actorToken, ALL_OWN, ALL_PARENT, type Host, type SocialWorld, type TokenSpec } from './social-world.ts';

/**
 * The social graph's cells: every operation × every door (REST on each host, GraphQL with each login type's token) ×
 * every credential condition, generated from the operation table, and the one function that runs a cell.
 */

export const SOCIAL_OPERATIONS: readonly SocialOperation[] = [...COMMENT_OPERATIONS, ...ACCOUNT_OPERATIONS, ...WEBHOOK_OPERATIONS];

export interface SocialDoor {
  transport: Transport;
  host: Host;
  label: string;
}

export const SOCIAL_DOORS: Record<'restOwn' | 'restParent' | 'graphqlOwn' | 'graphqlParent', SocialDoor> = {
  restOwn: { transport: 'rest', host: 'own', label: 'own-login host (REST)' },
  restParent: { transport: 'rest', host: 'parent', label: 'parent-platform host (REST)' },
  graphqlOwn: { transport: 'graphql', host: 'own', label: 'GraphQL gateway, own-login token' },
  graphqlParent: { transport: 'graphql', host: 'parent', label: 'GraphQL gateway, parent-platform token' },
};

type Expected = { kind: 'allowed'; control: boolean } | { kind: 'refused'; error: SocialErrorSpec };

/** What a cell varies: the credential itself, the token's permissions or page role, or whose object it is. */
export type SocialCellKind = 'authorised' | 'credential' | 'permission' | 'wrong-owner';

export interface SocialCell {
  name: string;
  kind: SocialCellKind;
  op: SocialOperation;
  door: SocialDoor;
  token: TokenSpec;
  /** GraphQL only: sent as X-Social-Host, so that the gateway judges the token by that host's rules. */
  socialHost?: Host;
  target?: (world: SocialWorld, host: Host) => Promise<Target>;
  expected: Expected;
}

const other = (host: Host): Host => (host === 'own' ? 'parent' : 'own');

interface Condition {
  kind: SocialCellKind;
  label: string;
  token: TokenSpec;
  socialHost?: Host;
  target?: (world: SocialWorld, host: Host) => Promise<Target>;
  expected: Expected;
}

/**
 * The credential conditions every operation meets on every door, and their answers (reference §3.3, README). Where the
 * app's own access token is the credential (`appToken`), a valid user token of either login type is 15, and an app token
 * that does not verify is one the host cannot parse.
 */
function tokenConditions(door: SocialDoor, appToken = false): Condition[] {
  const { host } = door;
  return [
    { kind: 'credential', label: 'without a token', token: { kind: 'none' }, expected: refused({ kind: 'noToken' }) },
    {
      kind: 'credential',
      label: 'with an Authorization header that holds no token (Basic)',
      token: { kind: 'header', value: 'Basic dXNlcjpwYXNzd29yZA==' },
      expected: refused({ kind: 'unparsable' }),
    },
    {
      kind: 'credential',
      label: 'with a malformed token',
      token: { kind: 'literal', value: 'not-a-token' },
      expected: refused({ kind: 'unparsable' }),
    },
    {
      kind: 'credential',
      label: 'with a badly signed token (an issued token with its last character changed)',
      token: { kind: 'tampered', login: host },
      expected: refused({ kind: 'unparsable' }),
    },
    { kind: 'credential', label: 'with an expired token', token: { kind: 'expired', login: host }, expected: refused({ kind: 'expired' }) },
    { kind: 'credential', label: 'with a revoked token', token: { kind: 'revoked', login: host }, expected: refused({ kind: 'revoked' }) },
    {
      kind: 'credential',
      label: `with a valid token of the other login type (${other(host) === 'own' ? 'own-login' : 'parent-platform'})`,
      token: actorToken(other(host)),
      // The gateway has no host of its own: X-Social-Host names the one the token is judged by.
      ...(door.transport === 'graphql' && { socialHost: host }),
      expected: refused(appToken ? { kind: 'appTokenRequired' } : { kind: 'wrongHost' }),
    },
    ...(appToken
      ? [
          {
            kind: 'credential',
            label: "with the app's id and another app's secret",
            token: { kind: 'app', app: 'wrong-secret' },
            expected: refused({ kind: 'unparsable' }),
          } satisfies Condition,
        ]
      : []),
  ];
}

function refused(error: SocialErrorSpec): Expected {
  return { kind: 'refused', error };
}

const ALLOWED: Expected = { kind: 'allowed', control: false };

/** One token per permission the rule needs: without it, or without a whole group of alternatives, or without one alternative. */
function permissionConditions(rule: HostRule, host: Host): Condition[] {
  const all = host === 'own' ? ALL_OWN : ALL_PARENT;
  const grant = (without: readonly string[]): TokenSpec =>
    host === 'own'
      ? { kind: 'grant', login: 'own', subject: 'bluebottle', permissions: allBut(all, without) }
      : { kind: 'grant', login: 'parent', subject: 'ana', permissions: allBut(all, without) };
  const conditions: Condition[] = [];
  for (const group of rule.permissions) {
    if (group.length === 1) {
      conditions.push({
        kind: 'permission',
        label: `with a token missing ${group[0]}`,
        token: grant(group),
        expected: refused({ kind: 'permission', anyOf: group }),
      });
      continue;
    }
    conditions.push({
      kind: 'permission',
      label: `with a token missing ${group.join(' and ')} (any one of them is needed)`,
      token: grant(group),
      expected: refused({ kind: 'permission', anyOf: group }),
    });
    for (const missing of group) {
      const rest = group.filter((p) => p !== missing);
      conditions.push({
        kind: 'permission',
        label: `with a token missing only ${missing} (${rest.join(' or ')} suffices)`,
        token: grant([missing]),
        expected: ALLOWED,
      });
    }
  }
  if (host === 'parent') {
    // Neither bm nor andy administers a business: where the rule wants a business admin, that refuses them too.
    const notAdmin = rule.businessAdmin ? refused({ kind: 'notAllowed' }) : ALLOWED;
    conditions.push({
      kind: 'permission',
      label: 'as a business-manager page role (bm) without ads_management and ads_read',
      token: { kind: 'grant', login: 'parent', subject: 'bm', permissions: allBut(all, ['ads_management', 'ads_read']) },
      expected: rule.businessManager ? refused({ kind: 'permission', anyOf: ['ads_management', 'ads_read'] }) : notAdmin,
    });
    conditions.push({
      kind: 'permission',
      label: 'as a page role with the ANALYZE task only (andy)',
      token: { kind: 'grant', login: 'parent', subject: 'andy', permissions: all },
      expected: rule.tasks ? refused({ kind: 'notAllowed' }) : notAdmin,
    });
  }
  return conditions;
}

/** The cells of one door, and the conditions that do not arise there with the reason why. */
export function socialCells(door: SocialDoor): { cells: SocialCell[]; notApplicable: NotApplicableCell[] } {
  const cells: SocialCell[] = [];
  const notApplicable: NotApplicableCell[] = [];
  for (const op of SOCIAL_OPERATIONS) {
    const request = `${door.label}: ${op.label[door.transport]}`;
    const access = op[door.host];
    const add = (condition: Condition) => {
      const outcome =
        condition.expected.kind === 'allowed' ? 'allowed' : `refused ${outcomeLabel(condition.expected.error, door.transport)}`;
      cells.push({
        name: cellName(request, condition.label, outcome),
        kind: condition.kind,
        op,
        door,
        token: condition.token,
        ...(condition.socialHost && { socialHost: condition.socialHost }),
        ...(condition.target && { target: condition.target }),
        expected: condition.expected,
      });
    };
    if (access.kind === 'absent') {
      notApplicable.push({ name: `${request} (every condition)`, reason: access.reason });
      continue;
    }
    if (access.kind === 'app-token') {
      add({
        kind: 'authorised',
        label: "with the app's own access token",
        token: { kind: 'app', app: 'matrix' },
        expected: { kind: 'allowed', control: op.reads },
      });
      for (const condition of tokenConditions(door, true)) add(condition);
      // No user permission applies: the door's actor with every permission is a user, not the app.
      add({
        kind: 'permission',
        label: `with a valid token of ${door.host === 'own' ? 'bluebottle' : 'ana'} (every permission; a user, not the app)`,
        token: actorToken(door.host),
        expected: refused({ kind: 'appTokenRequired' }),
      });
      for (const wrong of op.wrongOwner[door.host] ?? []) {
        add({
          kind: 'wrong-owner',
          label: wrong.label,
          token: wrong.token,
          ...(wrong.target && { target: wrong.target }),
          expected: refused(wrong.error),
        });
      }
      continue;
    }
    add({
      kind: 'authorised',
      label: `with a valid token of ${door.host === 'own' ? 'bluebottle' : 'ana'} (every permission)`,
      token: actorToken(door.host),
      expected: access.kind === 'rule' ? { kind: 'allowed', control: op.reads } : refused({ kind: 'unknownField', field: access.field }),
    });
    for (const condition of tokenConditions(door)) add(condition);
    if (access.kind === 'not-on-host') {
      notApplicable.push({
        name: `${request} with a token missing a permission, or of the wrong owner`,
        reason: `${access.field} is parent-platform only (reference §4): no permission makes it exist on this host`,
      });
      continue;
    }
    if (access.rule.permissions.length === 0) {
      notApplicable.push({
        name: `${request} with a token missing a permission`,
        reason: 'the reference requires no permission beyond a valid token',
      });
    }
    for (const condition of permissionConditions(access.rule, door.host)) add(condition);
    const wrongOwners = op.wrongOwner[door.host] ?? [];
    if (wrongOwners.length === 0) {
      notApplicable.push({ name: `${request} with the token of the wrong owner`, reason: op.wrongOwnerNotApplicable ?? 'no owner' });
    }
    for (const wrong of wrongOwners) {
      add({
        kind: 'wrong-owner',
        label: wrong.label,
        token: wrong.token,
        ...(wrong.target && { target: wrong.target }),
        expected: refused(wrong.error),
      });
    }
  }
  return { cells, notApplicable };
}

/** Every kind of cell: what defineSocialCells declares unless told otherwise. */
export const SOCIAL_CELL_KINDS: readonly SocialCellKind[] = ['authorised', 'credential', 'permission', 'wrong-owner'];

/** What a run of the social cells may add to each cell (nothing by default: the matrix as it is). */
export interface SocialCellOptions {
  /**
   * Runs before the cell's request, once the objects it acts on are known: the cached matrix reads the same data there
   * as other viewers, so that the gateway's fetch cache holds their entries when the cell runs.
   */
  beforeEachCell?(world: SocialWorld, cell: SocialCell, target: Target): Promise<void>;
}

/** Sends the cell's request on its door and checks the answer against the table. */
export async function runSocialCell(world: SocialWorld, cell: SocialCell, options: SocialCellOptions = {}): Promise<void> {
  const { host, transport } = cell.door;
  const target = await (cell.target ?? cell.op.target)(world, host);
  await options.beforeEachCell?.(world, cell, target);
  const credential = await world.credential(cell.token);
  const secrets = cell.op.secrets(world.ids, transport, host);
  if (transport === 'rest') {
    const call = cell.op.rest(target, host);
    const query = new URLSearchParams(call.method === 'POST' ? {} : (call.params ?? {}));
    if (credential.token !== undefined) query.set('access_token', credential.token);
    const path = query.size > 0 ? `${call.path}?${query}` : call.path;
    const client = createRestClient(host === 'own' ? world.system.restUrl : world.system.socialParentUrl);
    const reply = await client.request(call.method, path, {
      ...(credential.authorization !== undefined && { authorization: credential.authorization }),
      ...(call.method === 'POST' && {
        raw: new URLSearchParams(call.params ?? {}).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    });
    if (cell.expected.kind === 'refused') {
      expectGraphRefusal(reply, cell.expected.error, world.dates, target, secrets);
    } else {
      expect(reply.status, shown(reply.status, reply.text)).toBe(200);
      expect(reply.body?.error, shown(reply.status, reply.text)).toBeUndefined();
      if (cell.expected.control) expectShows(reply.text, secrets);
    }
  } else {
    const call = cell.op.graphql(target, host);
    const client = createGraphqlClient(world.system.gatewayUrl);
    const reply = await client.request(call.query, {
      variables: call.variables,
      ...(credential.token !== undefined && { token: credential.token }),
      ...(credential.authorization !== undefined && { authorization: credential.authorization }),
      ...(cell.socialHost && { headers: { 'x-social-host': cell.socialHost } }),
    });
    if (cell.expected.kind === 'refused') {
      expectGraphqlRefusal(reply, cell.expected.error, world.dates, target, secrets, {
        partial: cell.op.partialGraphqlRefusal !== undefined,
      });
    } else {
      expect(reply.status, shown(reply.status, reply.text)).toBe(200);
      expect(reply.errors, shown(reply.status, reply.text)).toBeUndefined();
      if (cell.expected.control) expectShows(reply.text, secrets);
    }
  }
  if (cell.expected.kind === 'refused' && cell.op.unchanged) await cell.op.unchanged(world, target);
}

/**
 * Declares the social matrix's tests for these doors, on the world `world()` returns once the file's beforeAll made it:
 * one describe per door, one test per cell of the given kinds (all by default), and the conditions that do not arise
 * kept as skipped tests saying why; `options` adds to each cell (the cached matrix's warm-up).
 */
export function defineSocialCells(
  world: () => SocialWorld,
  doors: readonly SocialDoor[],
  kinds: readonly SocialCellKind[] = SOCIAL_CELL_KINDS,
  options: SocialCellOptions = {},
): void {
  describe.each(doors)('$label', (door) => {
    const generated = socialCells(door);
    const cells = generated.cells.filter((cell) => kinds.includes(cell.kind));
    const notApplicable = generated.notApplicable;
    // Concurrently (vitest's default of 5 at a time): cells that write act on fresh objects, reads on objects no cell
    // changes, and tokens are minted once per condition, so no cell depends on another's order.
    it.concurrent.each(cells.map((cell) => [cell.name, cell] as const))('%s', (_name, cell) => runSocialCell(world(), cell, options));
    if (notApplicable.length > 0)
      it.skip.each(notApplicable.map((cell) => [`${cell.name} — not applicable: ${cell.reason}`] as const))('%s', () => {});
  });
}
