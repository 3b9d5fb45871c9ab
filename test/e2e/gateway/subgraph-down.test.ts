import { describe, expect, it } from 'vitest';
import { eventually } from '../../support/eventually.ts';
import { useSocialWorld } from '../../support/social-fixture.ts';

/**
 * The distributed gateway in production mode with the comments subgraph gone (issue 25): a social read still answers
 * what the accounts subgraph holds, with the comments subgraph's fields null and an error on each of them that names
 * the subgraph, with a code a client can act on and nothing of the subgraph's address or socket; Area A is served as
 * before; the gateway stays ready, DEGRADED, naming the subgraph.
 */
const world = useSocialWorld({
  distributed: true,
  env: { NODE_ENV: 'production', SOCIAL_CURSOR_SECRET: 'production-cursor-secret-of-32-characters' },
});

const SOCIAL_READ = `{ me { id username media(first: 2) { nodes { id caption commentsCount comments(first: 2) { nodes { id text } } } } } }`;

interface SocialReply {
  data: {
    me: {
      id: string;
      username: string;
      media: { nodes: { id: string; caption: string | null; commentsCount: number | null; comments: unknown }[] };
    } | null;
  };
  errors?: { message: string; path?: (string | number)[]; extensions: Record<string, unknown> }[];
}

async function graphql<T>(
  query: string,
  token: string,
  variables: Record<string, unknown> = {},
): Promise<{ status: number; text: string; body: T }> {
  const response = await fetch(world().system.gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as T };
}

describe('the comments subgraph down, behind the distributed gateway in production', () => {
  it("answers the account's own fields, with an error on the comments fields only; Area A as before; ready, DEGRADED", async () => {
    const { system, fixture } = world();
    const token = fixture.tokens.own;
    const admin = system.adminToken();
    const before = await graphql<SocialReply>(SOCIAL_READ, token);
    expect(before.body.errors).toBeUndefined();
    const media = before.body.data.me!.media.nodes;
    expect(media).toHaveLength(2);
    expect(media.every((node) => typeof node.commentsCount === 'number')).toBe(true);
    const created = await fetch(new URL('/api/v1/userExample', system.restUrl), {
      method: 'POST',
      body: JSON.stringify({
        name: 'Partial Data',
        email: 'partial@data.test',
        password: 'partial-password',
        phone: '13800138000',
        avatar: 'https://example.com/p.png',
        age: 30,
        gender: 'FEMALE',
      }),
    });
    expect(created.status).toBe(200);
    const { id } = (await created.json()) as { id: string };

    await system.subgraphs!.comments.close();

    const after = await graphql<SocialReply>(SOCIAL_READ, token);
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual({
      me: {
        id: before.body.data.me!.id,
        username: before.body.data.me!.username,
        media: { nodes: media.map((node) => ({ id: node.id, caption: node.caption, commentsCount: null, comments: null })) },
      },
    });
    expect(after.body.errors!.length).toBeGreaterThan(0);
    for (const error of after.body.errors!) {
      expect(error.message).toBe('The comments subgraph is unavailable. Retry the request later.');
      // Production: no reason (the transport's words, with the subgraph's address) and no stack.
      expect(error.extensions).toEqual({ code: 'SERVICE_UNAVAILABLE', serviceName: 'comments' });
    }
    expect(after.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|localhost|stacktrace/i);

    // Area A does not touch the comments subgraph.
    const read = await fetch(new URL(`/api/v1/userExample/${id}`, system.restUrl), { headers: { authorization: `Bearer ${admin}` } });
    expect(read.status).toBe(200);
    expect(((await read.json()) as { userExample: { email: string } }).userExample.email).toBe('partial@data.test');

    // Ready, DEGRADED, the subgraph named (probes of the same second share a report: the next ones see the stop).
    const ready = await eventually(async () => {
      const response = await fetch(new URL('/ready', system.restUrl));
      const reply = { status: response.status, body: (await response.json()) as { status: string; degraded?: string[] } };
      return reply.body.status !== 'UP' && reply;
    }, 'a /ready report made after the stop');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'DEGRADED', degraded: ['subgraph:comments'] });
  });
});
