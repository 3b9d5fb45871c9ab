import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** A PostgreSQL database made for one run (a test file, a bench) and dropped by `drop()`. */
export interface ThrowawayDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A database name written into SQL as it is: letters, digits and underscores. */
const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * Creates `<prefix>_<random>` on the server of `serverUrl` (whose user may create databases) and returns its URL, so runs
 * never share tables and leave nothing behind. `template`: a database to copy (one already migrated, which no session
 * holds open), instead of the server's empty template1.
 */
export async function createThrowawayDatabase(
  serverUrl: string,
  prefix: string,
  options: { template?: string } = {},
): Promise<ThrowawayDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  for (const identifier of [name, options.template ?? name]) {
    if (!IDENTIFIER.test(identifier)) throw new Error(`not a plain database name: ${identifier}`);
  }
  await withClient(serverUrl, (client) =>
    client.query(`create database ${name}${options.template ? ` template ${options.template}` : ''}`),
  );
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => withClient(serverUrl, (client) => client.query(`drop database if exists ${name} with (force)`)),
  };
}

async function withClient(serverUrl: string, work: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
