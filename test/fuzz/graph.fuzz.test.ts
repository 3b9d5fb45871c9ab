import { describe, it } from 'vitest';
import { createGraphDoor, fieldExpansions, graphRequestsOn, planOf } from '../support/fuzz/graph-door.ts';
import { checkDoor, runFuzzCase } from '../support/fuzz/fuzz-property.ts';
import { propertyTestTimeoutMs } from '../support/fuzz/fuzz-settings.ts';
import { useFuzzSystem } from '../support/fuzz/fuzz-suite.ts';

/**
 * Fuzz of the social graph's two hosts (Areas B and C): every reply is a Graph JSON object or the Graph error envelope
 * with a client code, within the bound; /me still answers on both hosts; a refused request stores nothing.
 */

const door = createGraphDoor();
const suite = useFuzzSystem('graph', 3, {}, () => door.close());

describe('the social graph hosts under hostile requests', () => {
  it(
    'answers hostile field expansions',
    () => checkDoor('field expansions', door, suite.system, fieldExpansions, suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'answers hostile requests on the own-login host',
    () => checkDoor('own-login host', door, suite.system, graphRequestsOn('own'), suite.tally),
    propertyTestTimeoutMs(),
  );
  it(
    'answers hostile requests on the parent-platform host',
    () => checkDoor('parent-platform host', door, suite.system, graphRequestsOn('parent'), suite.tally),
    propertyTestTimeoutMs(),
  );
});

/** Payloads the fuzz suite found, run through the same oracles. */
describe('graph regressions found by fuzzing', () => {
  it('judges a read answered 304 to `If-None-Match: *` as a conditional read, not as a broken reply', () =>
    runFuzzCase(
      door,
      suite.system,
      planOf({
        host: 'own',
        version: 'v25.0',
        node: { kind: 'me' },
        edge: [],
        method: 'GET',
        params: [['fields', 'id,username']],
        carrier: 'query',
        token: { kind: 'own' },
        tokenIn: 'bearer',
        ifNoneMatch: '*',
      }),
    ));

  it('answers an edge aliased as `id` in a read of edges alone (children.as(id)) as a client error, not a 500', () =>
    runFuzzCase(
      door,
      suite.system,
      planOf({
        host: 'own',
        version: 'v25.0',
        node: { kind: 'fixture', group: 'posts', name: '0' },
        edge: [],
        method: 'GET',
        params: [['fields', 'children.as(id){username}']],
        carrier: 'query',
        token: { kind: 'own' },
        tokenIn: 'param',
      }),
    ));
});
