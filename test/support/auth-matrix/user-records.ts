import type { ServiceError } from '@grpc/grpc-js';
import jwt from 'jsonwebtoken';
import { describe, expect, it } from 'vitest';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import { CREATE, createGraphqlClient, DELETE, GET, LIST, UPDATE } from '../graphql-client.ts';
import { createUserExampleGrpcClient, type UserExampleGrpcClient } from '../grpc-user-client.ts';
import { createRestClient } from '../rest-client.ts';
import type { TestSystem } from '../test-system.ts';
import {
  invalidToken,
  MALFORMED_HEADER,
  MISSING_TOKEN,
  NOT_A_JWT,
  permissionDenied,
  statusBody,
  tokenExpired,
} from '../user-example-errors.ts';
import { cellName, expectNoLeak, expectShows, shown, type NotApplicableCell } from './matrix.ts';

/**
 * Area A's auth matrix: Create, GetByID, UpdateByID, DeleteByID and List on REST, GraphQL and gRPC × every credential
 * condition. Expectations are the README's access rules and error table (and /work/shared/reference/user-records.md §8.3
 * for the REST body and WWW-Authenticate): Create is public but a credential that is sent must be valid; every other
 * operation needs a valid JWT; reading and listing are open to any signed-in user; updating and deleting to the record's
 * own user (token sub = id) and to role admin.
 */

export type UserOperation = 'Create' | 'GetByID' | 'UpdateByID' | 'DeleteByID' | 'List';
export type UserDoor = 'REST' | 'GraphQL' | 'gRPC';

export const USER_OPERATIONS: readonly UserOperation[] = ['Create', 'GetByID', 'UpdateByID', 'DeleteByID', 'List'];
export const USER_DOORS: readonly UserDoor[] = ['REST', 'GraphQL', 'gRPC'];

const REQUEST_LABEL: Record<UserDoor, Record<UserOperation, string>> = {
  REST: {
    Create: 'POST /api/v1/userExample',
    GetByID: 'GET /api/v1/userExample/{id}',
    UpdateByID: 'PUT /api/v1/userExample/{id}',
    DeleteByID: 'DELETE /api/v1/userExample/{id}',
    List: 'POST /api/v1/userExample/list',
  },
  GraphQL: {
    Create: 'createUserExample',
    GetByID: 'userExample(id)',
    UpdateByID: 'updateUserExample',
    DeleteByID: 'deleteUserExample',
    List: 'userExamples',
  },
  gRPC: {
    Create: 'userExample/Create',
    GetByID: 'userExample/GetByID',
    UpdateByID: 'userExample/UpdateByID',
    DeleteByID: 'userExample/DeleteByID',
    List: 'userExample/List',
  },
};

/** What a cell acts on and with: the system, the record the request names, and the other credentials it may need. */
export interface UserContext {
  system: TestSystem;
  /** The record the request names (a fresh one for updates and deletes). */
  id: string;
  /** A valid token of the social graph (Areas B–D): a credential of the other kind. */
  socialToken: string;
}

interface Credential {
  label: string;
  /** The Authorization header (gRPC: `authorization` metadata); undefined sends none. */
  authorization(ctx: UserContext): string | undefined;
  /** The UNAUTHENTICATED message it gets, from the header sent; undefined when the credential is valid. */
  refusal?: (authorization: string | undefined) => string;
}

/** A token signed as the system signs them, with these changes (the real issuer, audience and secret by default). */
function signed(ctx: UserContext, options: jwt.SignOptions & { secret?: string; withoutExp?: boolean } = {}): string {
  const { secret, withoutExp, ...rest } = options;
  const { jwt: config } = ctx.system.config;
  return jwt.sign({ roles: ['admin'] }, secret ?? config.secret!, {
    algorithm: 'HS256',
    subject: 'admin',
    issuer: config.issuer,
    audience: config.audience,
    ...(withoutExp ? {} : { expiresIn: '1h' as const }),
    ...rest,
  });
}

/** Conditions whose credential is refused whatever the operation (every one names an administrator, to show it is not
 * the claims that are refused). */
const BAD_CREDENTIALS: readonly Credential[] = [
  { label: 'without a token', authorization: () => undefined, refusal: () => MISSING_TOKEN },
  {
    label: 'with an Authorization header that is not Bearer (Basic)',
    authorization: () => 'Basic YWRtaW46YWRtaW4=',
    refusal: () => MALFORMED_HEADER,
  },
  { label: 'with a malformed token', authorization: () => 'Bearer not-a-jwt', refusal: () => NOT_A_JWT },
  {
    label: 'with a badly signed token (another secret)',
    authorization: (ctx) => `Bearer ${signed(ctx, { secret: 'another-secret-that-is-also-32-characters-long' })}`,
    refusal: () => invalidToken('bad signature'),
  },
  {
    label: 'with an expired token',
    authorization: (ctx) => `Bearer ${signed(ctx, { expiresIn: -60 })}`,
    refusal: (authorization) => {
      const exp = (jwt.decode(authorization!.slice('Bearer '.length)) as { exp: number }).exp;
      return tokenExpired(new Date(exp * 1000));
    },
  },
  {
    label: 'with a token of another issuer',
    authorization: (ctx) => `Bearer ${signed(ctx, { issuer: 'somebody-else' })}`,
    refusal: () => invalidToken('issuer invalid. expected: tributary'),
  },
  {
    label: 'with a token for another audience',
    authorization: (ctx) => `Bearer ${signed(ctx, { audience: 'somebody-else' })}`,
    refusal: () => invalidToken('audience invalid. expected: tributary'),
  },
  {
    label: 'with an unsigned token (alg none)',
    authorization: (ctx) => `Bearer ${signed(ctx, { algorithm: 'none', secret: '' })}`,
    refusal: () => invalidToken('signature is required'),
  },
  {
    label: 'with a token without exp',
    authorization: (ctx) => `Bearer ${signed(ctx, { withoutExp: true })}`,
    refusal: () => invalidToken('the "exp" claim is missing'),
  },
  {
    // Area A has one login type; a credential of the other kind is the social graph's opaque token.
    label: 'with a token of the other login type (a social-graph token)',
    authorization: (ctx) => `Bearer ${ctx.socialToken}`,
    refusal: () => NOT_A_JWT,
  },
];

export type UserExpected =
  | { kind: 'allowed' }
  | { kind: 'refused'; code: 'UNAUTHENTICATED' | 'PERMISSION_DENIED'; message: (authorization: string | undefined) => string };

export interface UserCell {
  name: string;
  door: UserDoor;
  op: UserOperation;
  authorization(ctx: UserContext): string | undefined;
  expected: UserExpected;
}

/** The cells of one door, and the conditions that cannot arise for Area A with the reason why. */
export function userCells(door: UserDoor): { cells: UserCell[]; notApplicable: NotApplicableCell[] } {
  const cells: UserCell[] = [];
  const notApplicable: NotApplicableCell[] = [];
  for (const op of USER_OPERATIONS) {
    const request = `${door}: ${REQUEST_LABEL[door][op]}`;
    const writes = op === 'UpdateByID' || op === 'DeleteByID';
    const add = (label: string, authorization: UserCell['authorization'], expected: UserExpected) => {
      const outcome = expected.kind === 'allowed' ? 'allowed' : `refused ${expected.code}`;
      cells.push({ name: cellName(request, label, outcome), door, op, authorization, expected });
    };
    const denied: UserExpected = {
      kind: 'refused',
      code: 'PERMISSION_DENIED',
      message: () => permissionDenied(op === 'UpdateByID' ? 'update' : 'delete'),
    };

    if (op === 'Create') add('without a token (sign-up is public)', () => undefined, { kind: 'allowed' });
    else if (writes)
      add("with the record's own user's token (sub = id)", (ctx) => `Bearer ${ctx.system.userToken(ctx.id)}`, { kind: 'allowed' });
    else add('with any signed-in user’s token', (ctx) => `Bearer ${ctx.system.userToken('a-reader')}`, { kind: 'allowed' });
    if (op !== 'Create') add('with an administrator’s token', (ctx) => `Bearer ${ctx.system.adminToken()}`, { kind: 'allowed' });

    for (const credential of BAD_CREDENTIALS) {
      if (op === 'Create' && credential.label === 'without a token') continue;
      add(credential.label, credential.authorization, { kind: 'refused', code: 'UNAUTHENTICATED', message: credential.refusal! });
    }
    notApplicable.push({ name: `${request} with a revoked token`, reason: 'Area A JWTs are self-contained and have no revocation list' });

    if (writes) {
      add(
        "with a token missing the admin role (roles: ['editor']) for another user's record",
        (ctx) => `Bearer ${ctx.system.tokens.mint({ sub: `${ctx.id}0`, roles: ['editor'] })}`,
        denied,
      );
      add("with another user's token (the wrong owner)", (ctx) => `Bearer ${ctx.system.userToken(String(BigInt(ctx.id) + 1n))}`, denied);
    } else if (op === 'Create') {
      notApplicable.push({
        name: `${request} with a token missing a permission, or of the wrong owner`,
        reason: 'a new record has no owner yet and sign-up needs no role',
      });
    } else {
      notApplicable.push({
        name: `${request} with a token missing a permission`,
        reason: 'any signed-in user may read and list (README); no role is required',
      });
      // The README lets any signed-in caller read any record: another user's token is allowed, by design.
      add("with another user's token (not the record's owner)", (ctx) => `Bearer ${ctx.system.userToken(String(BigInt(ctx.id) + 1n))}`, {
        kind: 'allowed',
      });
    }
  }
  return { cells, notApplicable };
}

/** A record with values no refusal may show. */
export function distinctiveUser(tag: string) {
  return {
    name: `Matrix Victim ${tag}`,
    email: `victim-${tag}@matrix.example`,
    password: 'correct-horse-battery',
    phone: '13912345678',
    avatar: `https://cdn.example.com/victim-${tag}.png`,
    age: 47,
    gender: 'FEMALE',
  };
}

const secretsOf = (user: ReturnType<typeof distinctiveUser>) => [user.name, user.email, user.avatar];

let sequence = 0;
const nextTag = () => `${process.pid}-${Date.now().toString(36)}-${(sequence += 1)}`;

export interface UserMatrix {
  run(cell: UserCell): Promise<void>;
  close(): void;
}

/** A record a cell acts on, with the values no refusal may show. */
export type DistinctiveUser = ReturnType<typeof distinctiveUser>;

/** What a run of Area A's cells may add to each cell (nothing by default: the matrix as it is). */
export interface UserMatrixOptions {
  /**
   * Runs before the cell's request, once the record it names is made (`ctx.id`; for Create, `user` is the record it will
   * send): the cached matrix reads the same data there as other viewers, so that the fetch cache holds their entries.
   */
  beforeEachCell?(cell: UserCell, ctx: UserContext & { user: DistinctiveUser }): Promise<void>;
}

/** The runner of Area A's cells on one system: a shared record for reads, a fresh one for each write. */
export async function createUserMatrix(system: TestSystem, options: UserMatrixOptions = {}): Promise<UserMatrix> {
  const rest = createRestClient(system.restUrl);
  const gql = createGraphqlClient(system.gatewayUrl);
  const grpc: UserExampleGrpcClient = createUserExampleGrpcClient(system.grpcAddress);
  const admin = () => system.adminToken();
  // A live token of the social graph; its subject does not matter, only that it is a valid credential of the other kind.
  const socialToken = await createSocialTokens(system.database).issue({
    loginType: 'own',
    subjectId: '17840000000000017',
    permissions: [],
    expiresInSeconds: 3600,
  });

  async function create(user: ReturnType<typeof distinctiveUser>): Promise<string> {
    const reply = await rest.request('POST', '/api/v1/userExample', { token: admin(), json: user });
    expect(reply.status, shown(reply.status, reply.text)).toBe(200);
    return reply.body.id as string;
  }
  const readAsAdmin = (id: string) => rest.request('GET', `/api/v1/userExample/${id}`, { token: admin() });
  const countByEmail = async (email: string) =>
    (
      await rest.request('POST', '/api/v1/userExample/list', {
        token: admin(),
        json: { params: { columns: [{ name: 'email', value: email }] } },
      })
    ).body.total;

  const reader = distinctiveUser(nextTag());
  const readerId = await create(reader);

  return {
    close: () => grpc.close(),
    async run(cell) {
      const writes = cell.op === 'UpdateByID' || cell.op === 'DeleteByID';
      // Reads share one record; a write (and a create) gets its own, so that one wrongly allowed cannot disturb the next.
      const user = cell.op === 'GetByID' || cell.op === 'List' ? reader : distinctiveUser(nextTag());
      const id = writes ? await create(user) : readerId;
      const ctx: UserContext = { system, id, socialToken };
      await options.beforeEachCell?.(cell, { ...ctx, user });
      const authorization = cell.authorization(ctx);
      const secrets = cell.op === 'Create' ? [] : secretsOf(user);

      const outcome = await send(cell, id, user, authorization);
      if (cell.expected.kind === 'allowed') {
        expect(outcome.ok, outcome.shown).toBe(true);
        if (cell.op === 'GetByID' || cell.op === 'List') expectShows(outcome.text, secrets);
        return;
      }
      const message = cell.expected.message(authorization);
      expect(outcome.ok, outcome.shown).toBe(false);
      if (cell.door === 'REST') {
        const status = cell.expected.code === 'UNAUTHENTICATED' ? 401 : 403;
        expect(outcome.status, outcome.shown).toBe(status);
        expect(outcome.body, outcome.shown).toEqual(statusBody(cell.expected.code === 'UNAUTHENTICATED' ? 16 : 7, message));
        if (status === 401) {
          // RFC 6750 §3.1: the bare challenge without a credential, the reason with a refused one (" made ').
          expect(outcome.challenge).toBe(
            authorization === undefined
              ? 'Bearer realm="tributary"'
              : `Bearer realm="tributary", error="invalid_token", error_description="${message.replace(/["\\]/g, "'")}"`,
          );
        }
      } else if (cell.door === 'GraphQL') {
        const field = {
          Create: 'createUserExample',
          GetByID: 'userExample',
          UpdateByID: 'updateUserExample',
          DeleteByID: 'deleteUserExample',
          List: 'userExamples',
        }[cell.op];
        expect(outcome.status, outcome.shown).toBe(200);
        expect(outcome.body.errors, outcome.shown).toEqual([
          {
            message,
            path: [field],
            extensions: { code: cell.expected.code === 'UNAUTHENTICATED' ? 'UNAUTHENTICATED' : 'FORBIDDEN', serviceName: 'users' },
          },
        ]);
        expect(outcome.body.data, outcome.shown).toEqual(cell.op === 'GetByID' ? { userExample: null } : null);
      } else {
        expect(outcome.grpcCode, outcome.shown).toBe(cell.expected.code === 'UNAUTHENTICATED' ? 16 : 7);
        expect(outcome.details, outcome.shown).toBe(message);
        expect(outcome.detailsTrailer, 'no google.rpc.Status detail is sent for this code').toEqual([]);
      }
      expectNoLeak(outcome.text, secrets);
      // What was refused did not happen.
      if (writes) {
        const after = await readAsAdmin(id);
        expect(after.status, `the refused request removed the record: ${shown(after.status, after.text)}`).toBe(200);
        expect(after.body.userExample, 'the refused request changed the record').toMatchObject({
          name: user.name,
          email: user.email,
          avatar: user.avatar,
        });
      }
      if (cell.op === 'Create') expect(await countByEmail(user.email), 'the refused create stored the record').toBe('0');
    },
  };

  interface Outcome {
    ok: boolean;
    status?: number;
    grpcCode?: number;
    body?: any;
    challenge?: string | null;
    detailsTrailer?: unknown[];
    /** gRPC: the status message. */
    details?: string;
    /** Everything the caller received, as text (for the leak check). */
    text: string;
    shown: string;
  }

  async function send(
    cell: UserCell,
    id: string,
    user: ReturnType<typeof distinctiveUser>,
    authorization: string | undefined,
  ): Promise<Outcome> {
    const auth = authorization === undefined ? {} : { authorization };
    if (cell.door === 'REST') {
      const [method, path, json] = {
        Create: ['POST', '/api/v1/userExample', user],
        GetByID: ['GET', `/api/v1/userExample/${id}`, undefined],
        UpdateByID: ['PUT', `/api/v1/userExample/${id}`, { name: 'Hijacked' }],
        DeleteByID: ['DELETE', `/api/v1/userExample/${id}`, undefined],
        List: ['POST', '/api/v1/userExample/list', { params: { columns: [{ name: 'id', value: id }] } }],
      }[cell.op] as [string, string, unknown];
      const reply = await rest.request(method, path, { ...auth, ...(json !== undefined && { json }) });
      return {
        ok: reply.status === 200,
        status: reply.status,
        body: reply.body,
        challenge: reply.headers.get('www-authenticate'),
        text: reply.text,
        shown: shown(reply.status, reply.text),
      };
    }
    if (cell.door === 'GraphQL') {
      const [query, variables] = {
        Create: [CREATE, { input: user }],
        GetByID: [GET, { id }],
        UpdateByID: [UPDATE, { id, input: { name: 'Hijacked' } }],
        DeleteByID: [DELETE, { id }],
        List: [LIST, { params: { columns: [{ name: 'id', value: id }] } }],
      }[cell.op] as [string, Record<string, unknown>];
      const reply = await gql.request(query, { variables, ...auth });
      return {
        ok: reply.errors === undefined,
        status: reply.status,
        body: { data: reply.data, errors: reply.errors },
        text: reply.text,
        shown: shown(reply.status, reply.text),
      };
    }
    const request = {
      Create: user,
      GetByID: { id },
      UpdateByID: { id, name: 'Hijacked' },
      DeleteByID: { id },
      List: { params: { columns: [{ name: 'id', value: id }] } },
    }[cell.op];
    try {
      const reply = await grpc.call(cell.op, request, authorization === undefined ? {} : { authorization });
      const text = JSON.stringify(reply);
      return { ok: true, text, shown: `OK ${text.slice(0, 600)}` };
    } catch (thrown) {
      const error = thrown as ServiceError;
      const trailers = JSON.stringify(error.metadata?.toJSON() ?? {});
      return {
        ok: false,
        grpcCode: error.code,
        detailsTrailer: error.metadata?.get('grpc-status-details-bin') ?? [],
        details: error.details,
        text: `${error.details} ${trailers}`,
        shown: `gRPC ${error.code}: ${error.details} ${trailers.slice(0, 300)}`,
      };
    }
  }
}

/** Declares Area A's tests on the runner `matrix()` returns once the file's beforeAll made it: one describe per door. */
export function defineUserCells(matrix: () => UserMatrix): void {
  describe.each(USER_DOORS)('%s', (door) => {
    const { cells, notApplicable } = userCells(door);
    // Concurrently: each write and create acts on a record of its own, and reads share one that nothing changes.
    it.concurrent.each(cells.map((cell) => [cell.name, cell] as const))('%s', (_name, cell) => matrix().run(cell));
    // Kept in the report as skipped cells, each saying why the condition cannot arise for Area A.
    it.skip.each(notApplicable.map((cell) => [`${cell.name} — not applicable: ${cell.reason}`] as const))('%s', () => {});
  });
}
