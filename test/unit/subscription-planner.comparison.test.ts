/**
 * The library copy `subscription-planner` (lib/stand-ins/stand-in-registry.ts, LIBRARY_COPIES): gateway/live/
 * subscription-planner.ts keeps a query planner of its own, built as @apollo/gateway builds the one it keeps to itself
 * (`new QueryPlanner(Supergraph.build(sdl), queryPlannerConfig)`). Held here to the gateway's own planner, loaded on the
 * same supergraph: the same plan for every subscription of the API schema and for generated queries, and — for the
 * @defer planner, which the gateway does not build — the same plan as the gateway's for a query without @defer.
 */
import { readFileSync } from 'node:fs';
import { operationFromDocument } from '@apollo/federation-internals';
import { ApolloGateway } from '@apollo/gateway';
import { prettyFormatQueryPlan, type QueryPlan, type QueryPlanner } from '@apollo/query-planner';
import { buildSchema, parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSubscriptionPlanner, type PlannedSupergraph } from '../../gateway/live/subscription-planner.ts';
import { generateQuery, printQuery, type QueryRoots } from '../support/deferred-queries.ts';

const SUPERGRAPH = readFileSync(new URL('../../schema/supergraph.graphql', import.meta.url), 'utf8');
const API_SCHEMA = buildSchema(readFileSync(new URL('../../schema/api-schema.graphql', import.meta.url), 'utf8'));

const SUBSCRIPTIONS = [
  'subscription S($m: ID!) { mediaCommentEvents(mediaId: $m) { action cursor comment { id text from { id username } replies(first: 2) { nodes { id text } } } } }',
  'subscription S($c: ID!) { commentReplyEvents(commentId: $c, after: "x") { action occurredAt commentId comment { id text media { id caption } } } }',
  'subscription S($a: ID!) { accountMentionEvents(accountId: $a) { cursor occurredAt media { id caption } } }',
];

const ROOTS: QueryRoots = {
  social: ['me', 'media(id: "1")', 'comment(id: "2")', 'account(id: "3")', 'socialCaller'],
  users: ['userExamples(params: {limit: 3})', 'userExample(id: "1")'],
};
const GENERATED_QUERIES = 60;

let gateway: ApolloGateway;
let theirs: QueryPlanner;
let ours: PlannedSupergraph;

beforeAll(async () => {
  gateway = new ApolloGateway({ supergraphSdl: SUPERGRAPH });
  await gateway.load();
  // The planner @apollo/gateway keeps to itself (dist/index.js: `this.queryPlanner = new QueryPlanner(supergraph, …)`).
  theirs = (gateway as unknown as { queryPlanner: QueryPlanner }).queryPlanner;
  const planner = createSubscriptionPlanner();
  planner.loaded(SUPERGRAPH);
  ours = planner.current();
});

afterAll(async () => {
  await gateway.stop();
});

/** The gateway planner's plan of a document, over the gateway's own API schema. */
function theirPlan(text: string): QueryPlan {
  const apiSchema = (gateway as unknown as { apiSchema: Parameters<typeof operationFromDocument>[0] }).apiSchema;
  return theirs.buildQueryPlan(operationFromDocument(apiSchema, parse(text), {}));
}

describe('the subscription planner against @apollo/gateway 2.14.4 and @apollo/query-planner 2.14.4', () => {
  it.each(SUBSCRIPTIONS)('plans a subscription as the gateway plans it: %s', (text) => {
    const node = theirPlan(text).node;
    expect(node?.kind).toBe('Subscription');
    const plan = ours.plan(parse(text), 'S');
    expect({ kind: 'Subscription', primary: plan.primary, rest: plan.rest }).toEqual(node);
  });

  it(`plans ${GENERATED_QUERIES} generated queries without @defer as the gateway does, with its @defer planner`, () => {
    let compared = 0;
    for (let seed = 1; seed <= GENERATED_QUERIES; seed += 1) {
      const text = printQuery(generateQuery(API_SCHEMA, ROOTS, seed));
      expect(prettyFormatQueryPlan(ours.planDefer(parse(text), 'Generated')), text).toBe(prettyFormatQueryPlan(theirPlan(text)));
      compared += 1;
    }
    expect(compared).toBe(GENERATED_QUERIES);
  });

  it('and plans the same query with @defer into a Defer node (what the gateway cannot)', () => {
    const text = 'query Generated { userExamples(params: {limit: 3}) { total ... @defer(label: "u") { userExamples { id name } } } }';
    expect(theirPlan(text).node?.kind).not.toBe('Defer');
    expect(ours.planDefer(parse(text), 'Generated').node?.kind).toBe('Defer');
  });
});
