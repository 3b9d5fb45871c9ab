import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphErrorBody, RATE_LIMITS } from '../../support/graph-error-expectations.ts';
import { createGraphqlClient } from '../../support/graphql-client.ts';
import { openNpmStartWorld, type NpmStartWorld } from '../../support/npm-start-processes.ts';
import { startServiceProcess, type ServiceProcess } from '../../support/os-process.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * The social graph's rate limits are a rule of its services, counted in the database: a GraphQL caller is limited as a
 * REST caller is, both doors count against the same limits, and so do separate processes on one database.
 */

const COMMENT_QUERY = 'query C($id: ID!) { comment(id: $id) { id text } }';

async function restGet(base: string, path: string, token: string) {
  const response = await fetch(`${base}${path}?access_token=${token}`);
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { error?: { code: number; message: string } },
  };
}

describe('social rate limits on GraphQL, shared with REST', () => {
  let system: TestSystem;
  let fixture: SocialFixture;
  beforeAll(async () => {
    system = await startTestSystem({ SOCIAL_RATE_USER_CALLS_PER_HOUR: '4', SOCIAL_RATE_BUSINESS_CALLS_PER_DAY: '1000' });
    fixture = await createSocialFixture(system.database);
  });
  afterAll(async () => {
    await system?.close();
  });

  it('reports the usage of each GraphQL call in extensions.socialUsage', async () => {
    const graphql = createGraphqlClient(system.gatewayUrl);
    const reply = await graphql.request(COMMENT_QUERY, {
      token: fixture.tokens.roasterOwn,
      variables: { id: fixture.comments.roasterComment },
    });
    expect(reply.errors).toBeUndefined();
    expect(JSON.parse(reply.text).extensions?.socialUsage).toEqual({
      app: { call_count: 0, total_cputime: expect.any(Number), total_time: expect.any(Number) },
      business: {
        objectId: fixture.comments.roasterComment,
        usage: { call_count: 0, total_cputime: expect.any(Number), total_time: expect.any(Number), estimated_time_to_regain_access: 0 },
      },
    });
  });

  it('counts REST and GraphQL calls of one token together and refuses the next on either door with the user limit', async () => {
    const graphql = createGraphqlClient(system.gatewayUrl);
    const token = fixture.tokens.own;
    // Two calls over REST, two over GraphQL: the user's limit of 4.
    for (let i = 0; i < 2; i++) expect((await restGet(system.restUrl, `/v25.0/${fixture.comments.fanComment}`, token)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const reply = await graphql.request(COMMENT_QUERY, { token, variables: { id: fixture.comments.fanComment } });
      expect(reply.errors).toBeUndefined();
    }
    const refusedOnGraphql = await graphql.request(COMMENT_QUERY, { token, variables: { id: fixture.comments.fanComment } });
    expect(refusedOnGraphql.data).toEqual({ comment: null });
    expect(refusedOnGraphql.errors).toEqual([
      {
        message: RATE_LIMITS.user.message,
        path: ['comment'],
        extensions: expect.objectContaining({ code: 'RATE_LIMITED', reason: 'RATE_LIMITED', scope: 'user' }),
      },
    ]);
    const refusedOnRest = await restGet(system.restUrl, `/v25.0/${fixture.comments.fanComment}`, token);
    expect(refusedOnRest.status).toBe(400);
    expect(refusedOnRest.body).toEqual(graphErrorBody(RATE_LIMITS.user));
    // Another token's calls are its own.
    const other = await graphql.request(COMMENT_QUERY, {
      token: fixture.tokens.roasterOwn,
      variables: { id: fixture.comments.roasterComment },
    });
    expect(other.errors).toBeUndefined();
  });
});

// Separate OS processes need a database they can all open: PostgreSQL.
describe.runIf(process.env.TEST_DATABASE === 'postgres')('social rate limits across two npm start processes on one database', () => {
  let world: NpmStartWorld;
  let fixture: SocialFixture;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    world = await openNpmStartWorld('rate-limits');
    fixture = world.fixture;
    const env = world.env({ SOCIAL_RATE_USER_CALLS_PER_HOUR: '3', SOCIAL_RATE_BUSINESS_CALLS_PER_DAY: '1000' });
    processes.push(
      ...(await Promise.all([
        startServiceProcess('first', 'dist/bin/start.js', [], env),
        startServiceProcess('second', 'dist/bin/start.js', [], env),
      ])),
    );
  }, 180_000);
  afterAll(async () => {
    await Promise.all(processes.map((process) => process.stop()));
    await world?.close();
  }, 60_000);

  it("counts a token's calls to either process against one limit", async () => {
    const [first, second] = processes.map((process) => ({
      rest: String(process.listening.rest),
      graphql: String(process.listening.graphql),
    }));
    const token = fixture.tokens.own;
    const comment = fixture.comments.fanComment;
    expect((await restGet(first!.rest, `/v25.0/${comment}`, token)).status).toBe(200);
    expect((await restGet(second!.rest, `/v25.0/${comment}`, token)).status).toBe(200);
    const third = await createGraphqlClient(second!.graphql).request(COMMENT_QUERY, { token, variables: { id: comment } });
    expect(third.errors).toBeUndefined();
    // The limit of 3 is reached whichever process answers next.
    const refused = await restGet(first!.rest, `/v25.0/${comment}`, token);
    expect(refused.body).toEqual(graphErrorBody(RATE_LIMITS.user));
    expect(JSON.parse(refused.headers.get('x-app-usage')!)).toMatchObject({ call_count: 0 });
  });
});
