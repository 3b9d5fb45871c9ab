import { expect } from 'vitest';
import type { RestClient, RestReply } from './rest-client.ts';
import type { TestSystem } from './test-system.ts';

/** Area A's REST fixtures: valid bodies, the records they make, the rules' wording, and helpers bound to a running system. */

export const BASE = '/api/v1/userExample';

export const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

export const CREATE_REQUEST = 'CreateUserExampleRequest';
export const LIST_REQUEST = 'ListUserExampleRequest';
export const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';



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

/** The message the service writes for a set of violations: `invalid <subject>: field: description; …`. */
export function violationMessage(subject: string, violations: { field: string; description: string }[]) {
  return `invalid ${subject}: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`;
}

export function expectJson(reply: RestReply) {
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
}

export function expectNoPassword(reply: RestReply) {
  expect(reply.text).not.toMatch(/password/i);
}

/** Helpers bound to one running system. */
export function helpers(getSystem: () => TestSystem, getClient: () => RestClient) {
  const admin = () => getSystem().adminToken();
  return {
    admin,
    async create(input: CreateBody | Record<string, unknown>): Promise<string> {
      const reply = await getClient().request('POST', BASE, { json: input });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toEqual({ id: expect.stringMatching(/^[1-9]\d*$/) });
      return reply.body.id as string;
    },
    async get(id: string) {
      const reply = await getClient().request('GET', `${BASE}/${id}`, { token: admin() });
      expect(reply.status, reply.text).toBe(200);
      expectNoPassword(reply);
      return reply.body.userExample as Record<string, unknown>;
    },
  };
}
