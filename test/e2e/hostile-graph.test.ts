import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSocialFixture, type SocialFixture } from '../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../support/test-system.ts';

/**
 * Regression tests of the Graph-style REST paths (Areas B and C) under hostile input (issue "Hostile traffic"): field
 * names that are Object.prototype's, and `fields=` expansions that multiply through edges until one request runs for
 * 40 s and ends the process. Each is refused at once in the Graph error envelope, on both hosts.
 */

interface GraphReply {
  status: number;
  body: any;
  ms: number;
}

async function get(url: string): Promise<GraphReply> {
  const started = Date.now();
  const response = await fetch(url);
  return { status: response.status, body: await response.json(), ms: Date.now() - started };
}

const TOO_MUCH_DATA = "Please reduce the amount of data you're asking for, then retry your request";

describe('Graph paths under hostile input', () => {
  let system: TestSystem;
  let fixture: SocialFixture;
  beforeAll(async () => {
    system = await startTestSystem();
    fixture = await createSocialFixture(system.database);
  });
  afterAll(() => system?.close());

  const own = (path: string, token = fixture.tokens.own) => `${system.restUrl}/v25.0/${path}${path.includes('?') ? '&' : '?'}access_token=${token}`;

  describe('field names that Object.prototype answers are unknown fields', () => {
    const names = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];
    it.each(names)('fields=%s on a node → 100 nonexisting field', async (name) => {
      const reply = await get(own(`me?fields=${name}`));
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({
        message: `(#100) Tried accessing nonexisting field (${name}) on node type (SocialUser)`,
        type: 'OAuthException',
        code: 100,
      });
    });

    it.each(names)('fields=%s on an edge and nested → 100 nonexisting field', async (name) => {
      const edge = await get(own(`me/media?fields=${name}`));
      expect(edge.status).toBe(400);
      expect(edge.body.error.message).toBe(`(#100) Tried accessing nonexisting field (${name}) on node type (SocialMedia)`);
      const nested = await get(own(`${fixture.comments.fanComment}?fields=replies{${name}}`));
      expect(nested.status).toBe(400);
      expect(nested.body.error.message).toBe(`(#100) Tried accessing nonexisting field (${name}) on node type (SocialComment)`);
    });

    it.each(names)('fields=%s without a token is answered as any unknown field is', async (name) => {
      const unknown = await get(`${system.restUrl}/v25.0/${fixture.accounts.bluebottle}?fields=nonexisting`);
      const reply = await get(`${system.restUrl}/v25.0/${fixture.accounts.bluebottle}?fields=${name}`);
      expect(reply.status).toBe(unknown.status);
      expect(reply.body.error.code).toBe(unknown.body.error.code);
      expect(reply.status).toBeLessThan(500);
    });

    it.each(['__proto__', '__typename'])('refuses the alias .as(%s)', async (alias) => {
      const reply = await get(own(`me?fields=username.as(${alias})`));
      expect(reply.status).toBe(400);
      expect(reply.body.error.code).toBe(100);
    });

    it('takes parameters named like Object.prototype’s members as parameters', async () => {
      const reply = await get(own(`${fixture.comments.fanComment}?__proto__=1&constructor=2&fields=id`));
      expect(reply).toMatchObject({ status: 200, body: { id: fixture.comments.fanComment } });
    });
  });

  describe('a field expansion is bounded before it runs', () => {
    it.each([
      ['media{comments{media{comments{media{comments{id}}}}}}'],
      ['media{comments{media{comments{media{comments{media{comments{media{comments{id}}}}}}}}}}'],
      ['media.limit(100){comments.limit(50){replies.limit(50){id}}}'],
    ])('refuses %s with code 1 at once, on both hosts', async (fields) => {
      const reply = await get(own(`me?fields=${encodeURIComponent(fields)}`));
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({ message: TOO_MUCH_DATA, type: 'OAuthException', code: 1, is_transient: false });
      expect(reply.body.error.error_user_msg).toMatch(/more than 50000 objects/);
      const parent = await get(
        `${system.socialParentUrl}/v25.0/${fixture.accounts.bluebottle}?fields=${encodeURIComponent(fields)}&access_token=${fixture.tokens.parent}`,
      );
      expect(parent.status).toBe(400);
      expect(parent.body.error).toMatchObject({ message: TOO_MUCH_DATA, code: 1 });
    });

    it('refuses an expansion naming more than 64 edges', async () => {
      const fields = Array.from({ length: 65 }, (_, i) => `media.limit(1).as(m${i}){id}`).join(',');
      const reply = await get(own(`me?fields=${encodeURIComponent(fields)}`));
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({ message: TOO_MUCH_DATA, code: 1 });
      expect(reply.body.error.error_user_msg).toMatch(/more than 64 edges/);
    });

    it('lets the deep read of the bench through (25 posts × 25 comments × their replies)', async () => {
      const reply = await get(own(`me?fields=${encodeURIComponent('media.limit(25){comments.limit(25){replies{text,username}}}')}`));
      expect(reply.status).toBe(200);
      expect(reply.body.media.data).toHaveLength(25);
    });

    it('bounds an edge read the same way as a node read', async () => {
      const reply = await get(own(`me/media?fields=${encodeURIComponent('comments{media{comments{media{comments{id}}}}}')}`));
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatchObject({ message: TOO_MUCH_DATA, code: 1 });
    });

    it('keeps serving after a refused expansion', async () => {
      await get(own(`me?fields=${encodeURIComponent('media{comments{media{comments{media{comments{id}}}}}}')}`));
      expect(await get(own('me?fields=username'))).toMatchObject({ status: 200, body: { username: 'bluebottle' } });
    });
  });
});
