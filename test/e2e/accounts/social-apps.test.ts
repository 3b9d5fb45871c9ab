import { describe, expect, it } from 'vitest';
import { appAccessToken } from '../../../lib/auth/social-auth/social-token.service.ts';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import { expectGraphError, unparsableToken } from '../../support/graph-error-expectations.ts';
import { useSocialWorld } from '../../support/social-fixture.ts';

/**
 * Apps (issue 26): an app access token, `<app id>|<app secret>`, speaks for the app — its webhook subscriptions — and
 * never for a user: on either host, a read that needs a user (`/me`) is refused as the Graph API refuses it (2500), and a
 * wrong secret is a token that cannot be parsed (190).
 */
const world = useSocialWorld();

describe('app access tokens', () => {
  it('are refused where a user is needed (2500), on both hosts; a wrong secret is unparsable (190)', async () => {
    const { system, ownHost, parentHost } = world();
    const app = await createSocialTokens(system.database).createApp('App token test');
    const meWithoutUser = { message: 'An active access token must be used to query information about the current user.', code: 2500 };
    for (const host of [ownHost, parentHost]) {
      expectGraphError(await host.request('GET', '/v25.0/me', { token: appAccessToken(app) }), meWithoutUser);
      expectGraphError(await host.request('GET', '/v25.0/me', { token: `${app.id}|${'f'.repeat(32)}` }), unparsableToken);
    }
    expect(app.secret).toMatch(/^[0-9a-f]{32}$/);
  });
});
