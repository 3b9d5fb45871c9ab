import type { ServerResponse } from 'node:http';
import { startGatewayProcess, type RunningSystem } from '../../bin/system/index.ts';
import { loadConfig } from '../../lib/config.ts';
import { createLogger } from '../../lib/logger.ts';

/**
 * A distributed gateway in front of users-subgraph servers a test controls (test/e2e/gateway-subgraph-*.test.ts): the
 * other subgraphs point at a port nobody listens on. Run on each subgraph client (SUBGRAPH_CLIENTS).
 */

/** The subgraph client switch: the stand-in, then the library's route. */
export const SUBGRAPH_CLIENTS = [
  ["undici's pool (the stand-in)", 'on'],
  ["@apollo/gateway's own fetcher", 'off'],
] as const;

/** A users subgraph's GetByID query, and the answer the stubs give it. */
export const STUB_QUERY = 'query One($id: UInt64!) { userExample(id: $id) { id name } }';
export const STUB_ANSWER = { data: { userExample: { id: '7', name: 'Seven' } } };

/** Where no subgraph listens. */
const UNUSED_URL = 'http://127.0.0.1:9/graphql';

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

/** The gateway over `usersUrls` (one URL, or several comma-separated), on the given client; `env` adds or overrides. */
export function startStubGateway(usersUrls: string, undiciSwitch: string, env: Record<string, string> = {}): Promise<RunningSystem> {
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PUBLIC_HOST: '127.0.0.1',
    GATEWAY_PORT: '0',
    REST_PORT: '0',
    SOCIAL_PARENT_PORT: '0',
    DATA_DIR: ':memory:',
    JWT_SECRET: 'test-secret-that-is-at-least-32-characters-long',
    GATEWAY_MODE: 'distributed',
    SUBGRAPH_USERS_URL: usersUrls,
    SUBGRAPH_ACCOUNTS_URL: UNUSED_URL,
    SUBGRAPH_COMMENTS_URL: UNUSED_URL,
    SUBGRAPH_MEDIA_URL: UNUSED_URL,
    STAND_IN_UNDICI_SUBGRAPH_CLIENT: undiciSwitch,
    ...env,
  });
  return startGatewayProcess(config, createLogger({ level: 'silent' }));
}
