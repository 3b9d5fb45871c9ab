/**
 * A gateway whose installed libraries no longer match what its stand-ins were checked against: @apollo/gateway's
 * resultShaping.js gone (a release that renamed it) and another @apollo/federation-internals release. It starts, serves
 * the same replies on the library's own routes, and says at start-up which stand-ins are off and what to re-verify.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../lib/logger.ts';
import { allStandIns, createStandIns, locatePackage } from '../../../lib/stand-ins/stand-in-gate.ts';
import { STAND_INS } from '../../../lib/stand-ins/stand-in-registry.ts';
import { GET, validInput, CREATE, createGraphqlClient } from '../../support/graphql-client.ts';
import { createLogCapture } from '../../support/log-capture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const logs = createLogCapture();
let system: TestSystem;

beforeAll(async () => {
  const newerInternals = mkdtempSync(join(tmpdir(), 'federation-internals-'));
  writeFileSync(join(newerInternals, 'package.json'), JSON.stringify({ name: '@apollo/federation-internals', version: '2.99.0' }));
  const standIns = createStandIns(allStandIns(true), createLogger({ level: 'info', destination: logs }), {
    registry: {
      ...STAND_INS,
      'result-shaping': { ...STAND_INS['result-shaping'], loads: [{ package: '@apollo/gateway', file: 'dist/resultShapingRenamed.js' }] },
    },
    locate: (name, from) => (name === '@apollo/federation-internals' ? newerInternals : locatePackage(name, from)),
  });
  system = await startTestSystem({}, { standIns });
});

afterAll(async () => {
  await system?.close();
});

describe('stand-ins over libraries they were not checked against', () => {
  it('are off with a warning each, naming what to re-verify', () => {
    const warnings = logs.entries().filter((entry) => entry.level === 40);
    expect(warnings.map((entry) => [entry.standIn, entry.msg, entry.reason])).toEqual([
      [
        'result-shaping',
        "stand-in off, the library's own route serves: the compiled result shaping",
        '@apollo/gateway/dist/resultShapingRenamed.js is missing; the compiled result shaping needs it: re-verify with test/unit/result-shaping.test.ts, then update lib/stand-ins/stand-in-registry.ts',
      ],
      [
        'operation-cache',
        "stand-in off, the library's own route serves: the operation cache",
        '@apollo/federation-internals is 2.99.0; the operation cache was checked against 2.14.4: re-verify with test/unit/operation-cache.test.ts, then update lib/stand-ins/stand-in-registry.ts',
      ],
    ]);
  });

  it('are reported at /metrics: 0 for those off, 1 for those serving', async () => {
    const metrics = await (await fetch(new URL('/metrics', system.gatewayUrl))).text();
    const serving = Object.fromEntries(
      [...metrics.matchAll(/^tributary_stand_in_serving\{stand_in="([a-z-]+)"[^}]*\} ([01])$/gm)].map((match) => [match[1], match[2]]),
    );
    expect(serving).toEqual({
      'http-fast-path': '1',
      'lean-json-body': '1',
      'operation-fast-lane': '1',
      'result-shaping': '0',
      'operation-cache': '0',
      'jit-subgraph-execution': '1',
      'undici-subgraph-client': '1',
      'rest-fast-path': '1',
    });
  });

  it('leave the gateway serving: a record created and read back through the library’s routes', async () => {
    const client = createGraphqlClient(system.gatewayUrl);
    const input = validInput();
    const created = await client.request<{ createUserExample: { id: string } }>(CREATE, {
      variables: { input },
      token: system.adminToken(),
    });
    expect(created.errors).toBeUndefined();
    const id = created.data!.createUserExample.id;
    const read = await client.request(GET, { variables: { id }, token: system.adminToken() });
    expect(read.status).toBe(200);
    expect(read.errors).toBeUndefined();
    expect(read.data.userExample).toMatchObject({ id, name: input.name, email: input.email });
  });
});
