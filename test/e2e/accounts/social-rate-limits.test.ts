import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphErrorBody, RATE_LIMITS } from '../../support/graph-error-expectations.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';

/** Rate limits of the Graph-style paths (reference §3.4): codes 4, 17, 32 and 80002 and the usage headers. */

interface Reply {
  status: number;
  headers: Headers;
  body: { error?: { message: string; type: string; code: number; is_transient?: boolean; fbtrace_id: string } };
}

async function get(base: string, path: string, token: string): Promise<Reply> {
  const response = await fetch(`${base}${path}${path.includes('?') ? '&' : '?'}access_token=${token}`);
  return { status: response.status, headers: response.headers, body: (await response.json()) as Reply['body'] };
}

describe('social rate limits', () => {
  let clock = new Date('2026-11-21T10:45:00Z').getTime();
  const now = () => new Date(clock);

  describe('per user, per object and per app', () => {
    let system: TestSystem;
    let fixture: SocialFixture;
    beforeAll(async () => {
      system = await startTestSystem(
        {
          SOCIAL_RATE_APP_CALLS_PER_HOUR: '12',
          SOCIAL_RATE_USER_CALLS_PER_HOUR: '5',
          SOCIAL_RATE_PAGE_CALLS_PER_HOUR: '3',
          SOCIAL_RATE_BUSINESS_CALLS_PER_DAY: '4',
        },
        { now },
      );
      fixture = await createSocialFixture(system.database, { now });
    });
    afterAll(async () => {
      await system?.close();
    });

    it('reports usage on every reply and refuses the object past its business-use-case limit with 80002', async () => {
      const account = fixture.accounts.bluebottle;
      const first = await get(system.restUrl, `/v25.0/${account}`, fixture.tokens.own);
      expect(first.status).toBe(200);
      expect(JSON.parse(first.headers.get('x-app-usage')!)).toEqual({
        call_count: 8,
        total_cputime: expect.any(Number),
        total_time: expect.any(Number),
      });
      expect(JSON.parse(first.headers.get('x-business-use-case-usage')!)).toEqual({
        [account]: [
          {
            type: 'social',
            call_count: 25,
            total_cputime: expect.any(Number),
            total_time: expect.any(Number),
            estimated_time_to_regain_access: 0,
          },
        ],
      });
      for (let i = 0; i < 3; i++) expect((await get(system.restUrl, `/v25.0/${account}`, fixture.tokens.own)).status).toBe(200);
      const refused = await get(system.restUrl, `/v25.0/${account}`, fixture.tokens.own);
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual(graphErrorBody(RATE_LIMITS.business));
      const usage = JSON.parse(refused.headers.get('x-business-use-case-usage')!)[account][0];
      expect(usage.call_count).toBe(100);
      // The day's window started at midnight UTC; 10:45 leaves 13 h 15 min.
      expect(usage.estimated_time_to_regain_access).toBe(13 * 60 + 15);
      expect(refused.headers.get('www-authenticate')).toContain('invalid_request');
    });

    it('refuses a user past its hourly limit with 17, whatever the object, and lets another user through', async () => {
      // The first test made 4 allowed calls for this user; one more reaches the limit of 5.
      expect((await get(system.restUrl, `/v25.0/${fixture.comments.fanComment}`, fixture.tokens.own)).status).toBe(200);
      const refused = await get(system.restUrl, `/v25.0/${fixture.comments.fanTwoComment}`, fixture.tokens.own);
      expect(refused.body).toEqual(graphErrorBody(RATE_LIMITS.user));
      expect((await get(system.restUrl, `/v25.0/${fixture.accounts.roaster}`, fixture.tokens.roasterOwn)).status).toBe(200);
    });

    it('refuses a user on one page of the parent-platform host past its hourly limit with 32', async () => {
      const account = fixture.accounts.roaster;
      for (let i = 0; i < 3; i++) expect((await get(system.socialParentUrl, `/v25.0/${account}`, fixture.tokens.parent)).status).toBe(200);
      const refused = await get(system.socialParentUrl, `/v25.0/${account}`, fixture.tokens.parent);
      expect(refused.body).toEqual(graphErrorBody(RATE_LIMITS.page));
    });

    it('refuses everyone past the application limit with 4, until the hour turns', async () => {
      // 4 + 2 + 3 = 9 allowed calls so far (refused calls are not counted); three more reach 12.
      for (let i = 0; i < 3; i++) {
        expect((await get(system.restUrl, `/v25.0/${fixture.comments.roasterComment}`, fixture.tokens.roasterOwn)).status).not.toBe(500);
      }
      const refused = await get(system.socialParentUrl, `/v25.0/me`, fixture.tokens.stranger);
      expect(refused.body).toEqual(graphErrorBody(RATE_LIMITS.app));
      expect(JSON.parse(refused.headers.get('x-app-usage')!).call_count).toBe(100);
      // 11:05: a new hour (the tokens, issued at 10:45 for an hour, are still valid).
      clock += 20 * 60 * 1000;
      expect((await get(system.socialParentUrl, `/v25.0/me`, fixture.tokens.stranger)).status).toBe(200);
    });
  });
});
