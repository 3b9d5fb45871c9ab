import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * "Did you mean …?" suggestions (GRAPHQL_FIELD_SUGGESTIONS): they spell out the schema that disabled introspection
 * hides, so production answers without them — in validation errors and in errors of coercing variables alike, at the
 * gateway and at the subgraph servers that the distributed topology makes reachable — and development keeps them.
 */

const PRODUCTION = { NODE_ENV: 'production', SOCIAL_CURSOR_SECRET: 'production-cursor-secret-of-32-characters' };

const TYPO_FIELD = '{ userExampl(id: 1) { id } }';
const TYPO_VARIABLE = 'mutation Create($input: CreateUserExampleInput!) { createUserExample(input: $input) { id } }';
const INPUT = {
  name: 'Ann Lee',
  email: 'ann@example.com',
  password: '0123456789',
  phone: '13800138000',
  avatar: 'https://x.example/a.png',
  age: 30,
  gender: 'MAL',
};

async function post(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

function fieldError(suffix: string) {
  return {
    status: 400,
    body: {
      errors: [
        {
          message: `Cannot query field "userExampl" on type "Query".${suffix}`,
          locations: [{ line: 1, column: 3 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    },
  };
}

function variableError(suffix: string) {
  return {
    status: 400,
    body: {
      errors: [
        {
          message: `Variable "$input" got invalid value "MAL" at "input.gender"; Value "MAL" does not exist in "GenderType" enum.${suffix}`,
          locations: [{ line: 1, column: 17 }],
          extensions: { code: 'BAD_USER_INPUT' },
        },
      ],
    },
  };
}

const MODES = [
  { mode: 'embedded gateway', start: (env: Record<string, string>) => startTestSystem(env) },
  { mode: 'distributed gateway (subgraphs over HTTP)', start: (env: Record<string, string>) => startDistributedTestSystem(env) },
];

describe.each(MODES)('NODE_ENV=production through the $mode', ({ mode, start }) => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await start(PRODUCTION);
  });
  afterAll(async () => {
    await system?.close();
  });

  it('names an unknown field without suggesting one', async () => {
    expect(await post(system.gatewayUrl, { query: TYPO_FIELD })).toEqual(fieldError(''));
  });

  it('refuses a bad enum value in the variables without suggesting one', async () => {
    expect(await post(system.gatewayUrl, { query: TYPO_VARIABLE, variables: { input: INPUT } })).toEqual(variableError(''));
  });

  if (mode.startsWith('distributed')) {
    it('suggests nothing at a subgraph server called directly either', async () => {
      const users = system.config.gateway.subgraphUrls.users!;
      expect(await post(users, { query: TYPO_FIELD })).toEqual(fieldError(''));
      expect(await post(users, { query: TYPO_VARIABLE, variables: { input: INPUT } })).toEqual(variableError(''));
    });
  }
});

describe('development', () => {
  let system: TestSystem;
  beforeAll(async () => {
    system = await startTestSystem({ NODE_ENV: 'development' });
  });
  afterAll(async () => {
    await system?.close();
  });

  it('suggests the field meant', async () => {
    expect(await post(system.gatewayUrl, { query: TYPO_FIELD })).toEqual(fieldError(' Did you mean "userExample" or "userExamples"?'));
  });

  it('suggests the enum value meant', async () => {
    expect(await post(system.gatewayUrl, { query: TYPO_VARIABLE, variables: { input: INPUT } })).toEqual(
      variableError(' Did you mean the enum value "MALE"?'),
    );
  });
});
