/**
 * lib/auth/auth.ts: a token that verified is not verified again until it expires — and nothing about what callers get
 * changes with that: the same actor, the same refusals with the same messages, expiry to the second.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTokenService } from '../../lib/auth/auth.ts';
import { loadConfig } from '../../lib/config.ts';
import { BAD_SIGNATURE, tokenExpired } from '../support/user-example-errors.ts';

const bearer = (token: string) => `Bearer ${token}`;

describe('token service', () => {
  afterEach(() => vi.useRealTimers());

  it('answers a token it has verified with the same frozen actor', () => {
    const tokens = createTokenService(loadConfig({}).jwt);
    const token = tokens.mint({ sub: '42', roles: ['admin'] });
    const first = tokens.authenticate(bearer(token));
    expect(first).toEqual({ kind: 'user', subject: '42', roles: ['admin'] });
    expect(tokens.authenticate(bearer(token))).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(first.kind === 'user' && Object.isFrozen(first.roles)).toBe(true);
  });

  it('refuses a token once it expires, with the message of a token never seen before', () => {
    vi.useFakeTimers({ now: new Date('2026-11-24T12:00:00.400Z'), toFake: ['Date'] });
    const tokens = createTokenService(loadConfig({}).jwt);
    const token = tokens.mint({ sub: '42' }, { expiresIn: 60 });
    expect(tokens.authenticate(bearer(token))).toMatchObject({ kind: 'user', subject: '42' });
    vi.setSystemTime(new Date('2026-11-24T12:00:59.999Z'));
    expect(tokens.authenticate(bearer(token))).toMatchObject({ kind: 'user', subject: '42' });
    vi.setSystemTime(new Date('2026-11-24T12:01:00.000Z'));
    const expired = tokens.authenticate(bearer(token));
    const fresh = createTokenService(loadConfig({}).jwt).authenticate(bearer(token));
    expect(expired).toMatchObject({ kind: 'invalid' });
    expect(expired.kind === 'invalid' && expired.error.message).toBe(tokenExpired(new Date('2026-11-24T12:01:00.000Z')));
    expect(fresh.kind === 'invalid' && fresh.error.message).toBe(tokenExpired(new Date('2026-11-24T12:01:00.000Z')));
  });

  it('verifies a forged token every time, and never lets it borrow a good token’s answer', () => {
    const tokens = createTokenService(loadConfig({}).jwt);
    const token = tokens.mint({ sub: '42' });
    expect(tokens.authenticate(bearer(token)).kind).toBe('user');
    const [header, payload, signature] = token.split('.');
    const forged = `${header}.${payload}.${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;
    for (let i = 0; i < 2; i++) {
      const actor = tokens.authenticate(bearer(forged));
      expect(actor.kind === 'invalid' && actor.error.message).toBe(BAD_SIGNATURE);
    }
    const other = createTokenService(loadConfig({ JWT_SECRET: 'another-secret-of-at-least-32-characters!!' }).jwt);
    const foreign = other.authenticate(bearer(token));
    expect(foreign.kind === 'invalid' && foreign.error.message).toBe(BAD_SIGNATURE);
  });
});
