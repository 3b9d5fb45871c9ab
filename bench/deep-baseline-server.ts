import { createServer } from 'node:http';
import { loadConfig } from '../lib/config.ts';
import { createDatabase } from '../lib/database/database.ts';
import type { SocialTables } from '../subgraphs/shared/social-graph/social-tables.ts';
import { deepRead } from './social-deep-read.ts';

/**
 * The deep read's hand-written SQL baseline (social-deep-read.ts) as a process of its own, for the fetch cache's section
 * (fetch-cache.ts): a POST whose JSON body names the account (`variables.id`, as the GraphQL load sends it) is answered
 * with that account's deep read — three statements and JSON.stringify, no auth, GraphQL or federation — from the
 * database at DATABASE_URL, on 127.0.0.1 at an ephemeral port. Prints `baseline <url>` once listening; ends on SIGTERM.
 */

const database = await createDatabase(loadConfig(process.env).database);
const db = database.db.withTables<SocialTables>();
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    let id: unknown;
    try {
      id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { variables?: { id?: unknown } }).variables?.id;
    } catch {
      id = undefined;
    }
    if (typeof id !== 'string' || !/^\d{1,20}$/.test(id)) {
      res.writeHead(400).end();
      return;
    }
    deepRead(db, id).then(
      (body) => {
        if (body === undefined) res.writeHead(404).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ data: body }));
      },
      (error: unknown) => res.writeHead(500).end(String(error)),
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') console.log(`baseline http://127.0.0.1:${address.port}/`);
});
process.once('SIGTERM', () => {
  server.close();
  void database.close().then(() => process.exit(0));
});
