import { beforeAll, describe, expect, it } from 'vitest';
import type { SocialAuthTables } from '../../lib/auth/social-auth/social-token.repository.ts';
import { appAccessToken, createSocialTokenService, type SocialTokenService } from '../../lib/auth/social-auth/social-token.service.ts';
import { isSocialId } from '../../lib/social-graph/social-ids.ts';
import { useTestDatabase } from '../support/test-system.ts';

describe('social access tokens', () => {
  let tokens: SocialTokenService;
  let clock = new Date('2026-11-21T12:00:00.000Z');

  const database = useTestDatabase();
  beforeAll(() => {
    tokens = createSocialTokenService({ db: database().db.withTables<SocialAuthTables>(), now: () => clock });
  });

  it('issues an opaque token naming its login type and reads it back', async () => {
    const own = await tokens.issue({
      loginType: 'own',
      subjectId: '17840000000000017',
      permissions: ['social_business_basic'],
      expiresInSeconds: 3600,
    });
    const parent = await tokens.issue({
      loginType: 'parent',
      subjectId: '17840000000000025',
      permissions: ['social_basic', 'pages_read_engagement'],
      expiresInSeconds: 3600,
    });
    expect(own).toMatch(/^SBA[A-Za-z0-9_-]{43}$/);
    expect(parent).toMatch(/^EAA[A-Za-z0-9_-]{43}$/);
    expect(await tokens.authenticate(own)).toEqual({
      kind: 'token',
      loginType: 'own',
      subjectId: '17840000000000017',
      permissions: new Set(['social_business_basic']),
      expiresAt: new Date('2026-11-21T13:00:00.000Z'),
      appId: null,
    });
    expect(await tokens.authenticate(parent)).toMatchObject({ kind: 'token', loginType: 'parent', subjectId: '17840000000000025' });
  });

  it('makes apps whose access token is id|secret, and issues user tokens to an app', async () => {
    const app = await tokens.createApp('Webhook tester');
    expect(app).toEqual({ id: expect.stringMatching(/^\d{17}$/), name: 'Webhook tester', secret: expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(isSocialId(app.id, 'app')).toBe(true);
    expect(await tokens.authenticate(appAccessToken(app))).toEqual({ kind: 'app', appId: app.id });
    // A wrong secret, an unknown app and an id of another kind are all just unparsable.
    expect(await tokens.authenticate(`${app.id}|${'0'.repeat(32)}`)).toEqual({ kind: 'invalid', reason: 'unparsable' });
    expect(await tokens.authenticate(`17840000000000172|${app.secret}`)).toEqual({ kind: 'invalid', reason: 'unparsable' });
    expect(await tokens.authenticate(`17840000000000017|${app.secret}`)).toEqual({ kind: 'invalid', reason: 'unparsable' });
    const user = await tokens.issue({
      loginType: 'own',
      subjectId: '17840000000000017',
      permissions: [],
      expiresInSeconds: 3600,
      appId: app.id,
    });
    expect(await tokens.authenticate(user)).toMatchObject({ kind: 'token', appId: app.id });
    expect(await tokens.findApp(app.id)).toEqual(app);
    expect(await tokens.findApp('17840000000000017')).toBeUndefined();
    expect((await tokens.listApps()).map((listed) => listed.id)).toContain(app.id);
  });

  it('tells no token, an unparsable one and an unknown one apart', async () => {
    expect(await tokens.authenticate(undefined)).toEqual({ kind: 'none' });
    expect(await tokens.authenticate('')).toEqual({ kind: 'none' });
    expect(await tokens.authenticate('not a token')).toEqual({ kind: 'invalid', reason: 'unparsable' });
    expect(await tokens.authenticate(`SBA${'A'.repeat(43)}`)).toEqual({ kind: 'invalid', reason: 'unparsable' });
  });

  it('expires tokens by the clock', async () => {
    const token = await tokens.issue({ loginType: 'own', subjectId: '17840000000000017', permissions: [], expiresInSeconds: 60 });
    clock = new Date(clock.getTime() + 59_000);
    expect((await tokens.authenticate(token)).kind).toBe('token');
    const issuedAt = new Date(clock.getTime() - 59_000);
    clock = new Date(clock.getTime() + 1_000);
    expect(await tokens.authenticate(token)).toEqual({
      kind: 'invalid',
      reason: 'expired',
      expiredAt: new Date(issuedAt.getTime() + 60_000),
      now: clock,
    });
  });

  it('revokes a token at once, and only once', async () => {
    const token = await tokens.issue({ loginType: 'parent', subjectId: '17840000000000025', permissions: [], expiresInSeconds: 3600 });
    expect(await tokens.revoke(token)).toBe(true);
    expect(await tokens.authenticate(token)).toEqual({ kind: 'invalid', reason: 'revoked' });
    expect(await tokens.revoke(token)).toBe(false);
    expect(await tokens.revoke('garbage')).toBe(false);
  });

  it('reads the tokens checked in the same tick with one statement, each as it is at that moment', async () => {
    const issued = await Promise.all(
      [0, 1, 2].map(() =>
        tokens.issue({ loginType: 'own', subjectId: '17840000000000025', permissions: ['social_basic'], expiresInSeconds: 3600 }),
      ),
    );
    const reads: string[] = [];
    const stop = database().observeQueries((query) => {
      if (query.sql.includes('"social_auth"."access_token"')) reads.push(query.sql);
    });
    try {
      const checked = await Promise.all([...issued, issued[0]!, 'SBA' + 'x'.repeat(43)].map((token) => tokens.authenticate(token)));
      expect(checked.map((credential) => credential.kind)).toEqual(['token', 'token', 'token', 'token', 'invalid']);
      expect(reads).toHaveLength(1);
      // Nothing is kept: revoked, the next check sees it.
      expect(await tokens.revoke(issued[1]!)).toBe(true);
      expect(await tokens.authenticate(issued[1]!)).toEqual({ kind: 'invalid', reason: 'revoked' });
    } finally {
      stop();
    }
  });
});
