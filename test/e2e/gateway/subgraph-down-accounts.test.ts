import { describe, expect, it } from 'vitest';
import { useSocialWorld } from '../../support/social-fixture.ts';

/**
 * The other direction of issue 25's partial data: the accounts subgraph gone, a read rooted in the comments subgraph.
 * A comment's media object is the comments subgraph's (its id); its caption and carousel children are fetched from the
 * accounts subgraph as an entity. Those fields are nullable, so only they are null, each with the unavailability error,
 * and the comment and its media id are answered.
 */
const world = useSocialWorld({
  distributed: true,
  env: { NODE_ENV: 'production', SOCIAL_CURSOR_SECRET: 'production-cursor-secret-of-32-characters' },
});

const COMMENT_READ = `query Comment($id: ID!) { comment(id: $id) { id text media { id caption children(first: 2) { nodes { id } } } } }`;

interface CommentReply {
  data: { comment: { id: string; text: string; media: { id: string; caption: string | null; children: unknown } } | null };
  errors?: { message: string; path?: (string | number)[]; extensions: Record<string, unknown> }[];
}

async function read(id: string, token: string): Promise<{ status: number; text: string; body: CommentReply }> {
  const response = await fetch(world().system.gatewayUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: COMMENT_READ, variables: { id } }),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as CommentReply };
}

describe('the accounts subgraph down, behind the distributed gateway in production', () => {
  it("answers a comment and its media's id, with an error on the accounts subgraph's media fields only", async () => {
    const { system, fixture } = world();
    const token = fixture.tokens.own;
    const before = await read(fixture.comments.fanComment, token);
    expect(before.body.errors).toBeUndefined();
    const comment = before.body.data.comment!;
    expect(comment.media.children).toEqual({ nodes: [] });

    await system.subgraphs!.accounts.close();

    const after = await read(fixture.comments.fanComment, token);
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual({
      comment: { id: comment.id, text: comment.text, media: { id: comment.media.id, caption: null, children: null } },
    });
    // One error for the one entity fetch (@apollo/gateway gives a failed fetch's error no path of its own).
    expect(after.body.errors).toHaveLength(1);
    for (const error of after.body.errors!) {
      expect(error.message).toBe('The accounts subgraph is unavailable. Retry the request later.');
      expect(error.extensions).toEqual({ code: 'SERVICE_UNAVAILABLE', serviceName: 'accounts' });
    }
    expect(after.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|localhost|stacktrace/i);
  });
});
