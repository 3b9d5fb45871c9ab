import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../lib/config.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config.gateway.port).toBe(4000);
    expect(config.rest.port).toBe(8080);
    expect(config.grpc.port).toBe(9090);
    expect(config.gateway.mode).toBe('embedded');
    expect(config.database.url).toBeUndefined();
    expect(config.database.pgliteDir).toBe('./data/pglite');
    expect(config.gateway.introspection).toBe(true);
    expect(config.gateway.landingPage).toBe(true);
    expect(config.gateway.inlineTracing).toBe(false);
    expect(config.jwt.usingDevelopmentSecret).toBe(true);
    expect(config.users).toEqual({ listDefaultLimit: 20, listMaxLimit: 1000 });
    expect(Object.isFrozen(config.gateway)).toBe(true);
  });

  it('refuses the development JWT secret in production', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(
      new ConfigError('JWT_SECRET', 'must be set when NODE_ENV=production (the development secret is refused)'),
    );
  });

  it('turns introspection and the landing page off in production', () => {
    const config = loadConfig({ NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32), SOCIAL_CURSOR_SECRET: 'c'.repeat(32) });
    expect(config.gateway.introspection).toBe(false);
    expect(config.gateway.landingPage).toBe(false);
  });

  it.each([
    [{ GATEWAY_PORT: 'eighty' }, 'configuration: GATEWAY_PORT must be an integer, got "eighty"'],
    [{ REST_PORT: '70000' }, 'configuration: REST_PORT must be between 0 and 65535, got 70000'],
    [{ GATEWAY_MODE: 'mesh' }, 'configuration: GATEWAY_MODE must be one of embedded, distributed, got "mesh"'],
    [{ GATEWAY_MODE: 'distributed' }, 'configuration: SUBGRAPH_USERS_URL is required when GATEWAY_MODE=distributed'],
    [{ SUBGRAPH_USERS_URL: 'ftp://x' }, 'configuration: SUBGRAPH_USERS_URL must be an http(s) URL, got "ftp://x"'],
    [{ JWT_SECRET: 'short' }, 'configuration: JWT_SECRET must be at least 32 characters'],
    [{ JWT_ALGORITHM: 'RS256' }, 'configuration: JWT_PUBLIC_KEY is required with JWT_ALGORITHM=RS256'],
    [{ GRAPHQL_INTROSPECTION: 'maybe' }, 'configuration: GRAPHQL_INTROSPECTION must be true or false, got "maybe"'],
    [{ CORS_ORIGINS: 'app.example.com' }, 'configuration: CORS_ORIGINS must list origins such as https://app.example.com, got "app.example.com"'],
    [{ SOCIAL_CURSOR_SECRET: 'short' }, 'configuration: SOCIAL_CURSOR_SECRET must be at least 32 characters'],
    [{ SOCIAL_PARENT_PORT: '-1' }, 'configuration: SOCIAL_PARENT_PORT must be between 0 and 65535, got -1'],
    [{ SOCIAL_PARENT_HOSTNAME: 'graph example' }, 'configuration: SOCIAL_PARENT_HOSTNAME must be a host name such as graph.example.com, got "graph example"'],
    [
      { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(32) },
      'configuration: SOCIAL_CURSOR_SECRET must be set when NODE_ENV=production',
    ],
  ])('names the bad variable: %j', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});
