import { afterAll, beforeAll, expect } from 'vitest';
import { createRestClient, type RestClient, type RestReply } from './rest-client.ts';
import { startTestSystem, type TestSystem } from './test-system.ts';

/**
 * Area A's REST fixtures: valid bodies, the records they make, and the system a REST test file runs against
 * (useRestUserExampleSystem). The wording of its errors is in user-example-errors.ts.
 */

export const BASE = '/api/v1/userExample';

export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export type Gender = 'UNKNOWN' | 'MALE' | 'FEMALE';

export interface CreateBody {
  name: string;
  email: string;
  password: string;
  phone: string;
  avatar: string;
  age: number;
  gender: Gender | number;
}

let sequence = 0;

/** A valid create request with a unique e-mail address. */
export function newUser(overrides: Partial<CreateBody> = {}): CreateBody {
  sequence += 1;
  return {
    name: `Ada ${sequence}`,
    email: `ada.${sequence}@example.com`,
    password: 'analytical-engine',
    phone: '13800138000',
    avatar: 'https://example.com/ada.png',
    age: 36,
    gender: 'FEMALE',
    ...overrides,
  };
}

/** The record a GET must return for a freshly created body (status and loginAt start at zero). */
export function freshRecord(id: string, input: CreateBody, gender: Gender = input.gender as Gender) {
  return {
    id,
    name: input.name,
    email: input.email,
    phone: input.phone,
    avatar: input.avatar,
    age: input.age,
    gender,
    status: 0,
    loginAt: '0',
    createdAt: expect.stringMatching(RFC3339),
    updatedAt: expect.stringMatching(RFC3339),
  };
}

export function expectJson(reply: RestReply) {
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
}

export function expectNoPassword(reply: RestReply) {
  expect(reply.text).not.toMatch(/password/i);
}

/** What a REST test file of Area A works with; read it from hooks and tests (the system starts in beforeAll). */
export interface RestUserExampleSystem {
  /** The running system (its config, database and token service). */
  system(): TestSystem;
  /** A client of the REST adapter. */
  rest: RestClient;
  /** An administrator token (may read and write every record). */
  adminToken(): string;
  /** Records made and read back through the REST paths, each step checked. */
  records: {
    /** Creates a record (no token needed) and returns its id, checking the reply is `{"id": "<digits>"}`. */
    create(input: CreateBody | Record<string, unknown>): Promise<string>;
    /** Reads a record as the administrator, checking the reply is a 200 without any password. */
    get(id: string): Promise<Record<string, unknown>>;
  };
}

/**
 * For a test file (or describe block) of Area A over REST: starts a system before its tests (the embedded topology
 * unless `start` says otherwise) and closes it after them. Call it inside the describe block, before its own hooks.
 */
export function useRestUserExampleSystem(start: () => Promise<TestSystem> = () => startTestSystem()): RestUserExampleSystem {
  let running: { system: TestSystem; client: RestClient } | undefined;
  beforeAll(async () => {
    const system = await start();
    running = { system, client: createRestClient(system.restUrl) };
  });
  afterAll(async () => {
    await running?.system.close();
  });
  const current = () => {
    if (!running) throw new Error('useRestUserExampleSystem: the system starts in beforeAll; read it from a hook or a test');
    return running;
  };
  const rest: RestClient = { request: (method, path, options) => current().client.request(method, path, options) };
  const adminToken = () => current().system.adminToken();
  return {
    system: () => current().system,
    rest,
    adminToken,
    records: {
      async create(input) {
        const reply = await rest.request('POST', BASE, { json: input });
        expect(reply.status, reply.text).toBe(200);
        expect(reply.body).toEqual({ id: expect.stringMatching(/^[1-9]\d*$/) });
        return reply.body.id as string;
      },
      async get(id) {
        const reply = await rest.request('GET', `${BASE}/${id}`, { token: adminToken() });
        expect(reply.status, reply.text).toBe(200);
        expectNoPassword(reply);
        return reply.body.userExample as Record<string, unknown>;
      },
    },
  };
}
