import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.ts';
import { corsPolicyOf, describeCors, originAllowed } from '../../lib/http/cors.ts';

/** The CORS policy the configuration gives (lib/http/cors.ts, issue 40), and the start-up banner's line for it. */

const PRODUCTION = { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40), SOCIAL_CURSOR_SECRET: 'y'.repeat(40) };

describe('the CORS policy', () => {
  it("allows a dev server's origins on any port outside production, and nothing else unless listed", () => {
    const policy = corsPolicyOf(loadConfig({}));
    for (const origin of [
      'http://localhost:3000',
      'http://127.0.0.1:5173',
      'http://[::1]:8080',
      'https://localhost',
      'http://LOCALHOST:3000',
    ]) {
      expect(originAllowed(policy, origin), origin).toBe(true);
    }
    for (const origin of [
      'http://evil.example',
      'http://localhost.evil.example',
      'http://localhost:3000.evil.example',
      'null',
      'file://',
    ]) {
      expect(originAllowed(policy, origin), origin).toBe(false);
    }
    expect(policy.allowHeaders).toBeUndefined();
  });

  it('allows no local origin in production unless CORS_LOCAL_ORIGINS says so; CORS_ORIGINS lists exact origins or *', () => {
    expect(originAllowed(corsPolicyOf(loadConfig(PRODUCTION)), 'http://localhost:3000')).toBe(false);
    expect(originAllowed(corsPolicyOf(loadConfig({ ...PRODUCTION, CORS_LOCAL_ORIGINS: 'true' })), 'http://localhost:3000')).toBe(true);
    const listed = corsPolicyOf(loadConfig({ ...PRODUCTION, CORS_ORIGINS: 'https://app.example.com' }));
    expect([originAllowed(listed, 'https://app.example.com'), originAllowed(listed, 'https://app.example.com:8443')]).toEqual([
      true,
      false,
    ]);
    expect(originAllowed(corsPolicyOf(loadConfig({ ...PRODUCTION, CORS_ORIGINS: '*' })), 'http://anything.example')).toBe(true);
  });

  it('takes CORS_ALLOW_HEADERS as header names, lower-cased, and refuses anything else', () => {
    expect(loadConfig({ CORS_ALLOW_HEADERS: 'Content-Type, authorization,traceparent' }).corsAllowHeaders).toEqual([
      'content-type',
      'authorization',
      'traceparent',
    ]);
    expect(() => loadConfig({ CORS_ALLOW_HEADERS: 'content-type,bad header' })).toThrow(
      'CORS_ALLOW_HEADERS must list header names such as traceparent, got "bad header"',
    );
  });

  it("says in the banner's line what is allowed and how to change it", () => {
    expect(describeCors(corsPolicyOf(loadConfig({})))).toBe(
      'http://localhost:*, http://127.0.0.1:* (CORS_LOCAL_ORIGINS); CORS_ORIGINS adds origins',
    );
    expect(describeCors(corsPolicyOf(loadConfig(PRODUCTION)))).toBe(
      'no browser origin (set CORS_ORIGINS=https://app.example.com to allow a front-end on another origin)',
    );
    expect(
      describeCors(corsPolicyOf(loadConfig({ ...PRODUCTION, CORS_ORIGINS: 'https://app.example.com,https://admin.example.com' }))),
    ).toBe('https://app.example.com, https://admin.example.com; CORS_ORIGINS adds origins');
  });
});
