import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectGraphError, tooMuchData, unknownField } from '../../support/graph-error-expectations.ts';
import type { RestReply } from '../../support/rest-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * Regression tests of the Graph-style REST paths (Areas B and C) under hostile input (issue "Hostile traffic"): field
 * names that are Object.prototype's, and `fields=` expansions that multiply through edges until one request runs for
 * 40 s and ends the process. Each is refused at once in the Graph error envelope, on both hosts.
 */

async function get(url: string): Promise<RestReply> {
  const response = await fetch(url);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, body: JSON.parse(text) };
}

describe('Graph paths under hostile input', () => {
  let system: TestSystem;
  let fixture: SocialFixture;
  beforeAll(async () => {
    system = await startTestSystem();
    fixture = await createSocialFixture(system.database);
  });
  afterAll(() => system?.close());

  const own = (path: string, token = fixture.tokens.own) =>
    `${system.restUrl}/v25.0/${path}${path.includes('?') ? '&' : '?'}access_token=${token}`;

  describe('field names that Object.prototype answers are unknown fields', () => {
    const names = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];
    it.each(names)('fields=%s on a node → 100 nonexisting field', async (name) => {
      expectGraphError(await get(own(`me?fields=${name}`)), unknownField(name));
    });

    it.each(names)('fields=%s on an edge and nested → 100 nonexisting field', async (name) => {
      expectGraphError(await get(own(`me/media?fields=${name}`)), unknownField(name, 'SocialMedia'));
      expectGraphError(await get(own(`${fixture.comments.fanComment}?fields=replies{${name}}`)), unknownField(name, 'SocialComment'));
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

    it('answers a JSON body nested thousands deep with a client error, on a fresh process too (was a 500: its re-serialisation overflowed the stack)', async () => {
      // Found by the webhooks fuzz door: any Graph path, either host, the first requests of a process.
      // Depths around where a fresh process's parser still copes and its re-serialisation no longer does.
      for (const [base, depth] of [system.restUrl, system.socialParentUrl].flatMap((url) =>
        [2000, 2624, 3000, 4000, 6000].map((d) => [url, d] as const),
      )) {
        const body = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
        const response = await fetch(`${base}/v25.0/me/subscribed_apps?access_token=junk`, {
          method: 'DELETE',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const reply = { status: response.status, headers: response.headers, text: await response.text() };
        expect(reply.status, `depth ${depth}: ${reply.text}`).toBe(400);
        // Refused as nesting too deep (100), or read and then refused for its junk token (190): never a server error.
        expect([100, 190]).toContain(JSON.parse(reply.text).error.code);
      }
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
      expectGraphError(await get(own(`me?fields=${encodeURIComponent(fields)}`)), tooMuchData(/more than 50000 objects/));
      const parent = await get(
        `${system.socialParentUrl}/v25.0/${fixture.accounts.bluebottle}?fields=${encodeURIComponent(fields)}&access_token=${fixture.tokens.parent}`,
      );
      expectGraphError(parent, tooMuchData(/more than 50000 objects/));
    });

    it('refuses an expansion naming more than 64 edges', async () => {
      const fields = Array.from({ length: 65 }, (_, i) => `media.limit(1).as(m${i}){id}`).join(',');
      expectGraphError(await get(own(`me?fields=${encodeURIComponent(fields)}`)), tooMuchData(/more than 64 edges/));
    });

    it('lets the deep read of the bench through (25 posts × 25 comments × their replies)', async () => {
      const reply = await get(own(`me?fields=${encodeURIComponent('media.limit(25){comments.limit(25){replies{text,username}}}')}`));
      expect(reply.status).toBe(200);
      expect(reply.body.media.data).toHaveLength(25);
    });

    it('bounds an edge read the same way as a node read', async () => {
      expectGraphError(
        await get(own(`me/media?fields=${encodeURIComponent('comments{media{comments{media{comments{id}}}}}')}`)),
        tooMuchData(/more than 50000 objects/),
      );
    });

    it('keeps serving after a refused expansion', async () => {
      await get(own(`me?fields=${encodeURIComponent('media{comments{media{comments{media{comments{id}}}}}}')}`));
      expect(await get(own('me?fields=username'))).toMatchObject({ status: 200, body: { username: 'bluebottle' } });
    });
  });
});
