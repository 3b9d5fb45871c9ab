/**
 * npm run webhook-receiver -- --secret <app secret> [--verify-token T] [--port 9000] [--host 127.0.0.1] [--deliveries N]
 *
 * A local webhook receiver, so that a newcomer sees an event arrive (issue 26): it answers the verification request
 * (§6.2: `hub.mode=subscribe`, the challenge echoed when `hub.verify_token` matches, 403 otherwise), and prints each
 * delivery whose X-Hub-Signature-256 verifies with the app secret as one JSON line (the delivery identity, then the
 * body); a delivery whose signature does not verify is printed as refused and answered 403. Bodies past 1 MiB are
 * refused. Subscribe it with `callback_url=http://127.0.0.1:<port>/` — loopback callbacks are allowed in development;
 * elsewhere they need WEBHOOK_ALLOWED_HOSTS=127.0.0.1 in the server's environment (production refuses them). With
 * `--deliveries N` it stops once it has printed N verified deliveries (a script can `wait` for it: README "Webhooks").
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { DELIVERY_HEADER, verifySignature } from '../subgraphs/shared/webhooks/webhook-payload.ts';

const { values } = parseArgs({
  options: {
    secret: { type: 'string' },
    'verify-token': { type: 'string', default: 'tributary' },
    port: { type: 'string', default: '9000' },
    host: { type: 'string', default: '127.0.0.1' },
    deliveries: { type: 'string' },
  },
});
const USAGE =
  'usage: npm run webhook-receiver -- --secret <app secret> [--verify-token T] [--port 9000] [--host 127.0.0.1] [--deliveries N]';
if (!values.secret) {
  console.error(USAGE);
  process.exit(2);
}
const stopAfter = values.deliveries === undefined ? undefined : Number(values.deliveries);
if (stopAfter !== undefined && !(Number.isInteger(stopAfter) && stopAfter >= 1)) {
  console.error(`--deliveries must be a whole number of at least 1. ${USAGE}`);
  process.exit(2);
}
let delivered = 0;
const secret = values.secret;
const verifyToken = values['verify-token'];
const MAX_BODY = 1 << 20;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://receiver');
  if (req.method === 'GET') {
    const ok = url.searchParams.get('hub.mode') === 'subscribe' && url.searchParams.get('hub.verify_token') === verifyToken;
    console.log(
      JSON.stringify({ verification: ok ? 'answered' : 'refused (verify token)', challenge: url.searchParams.get('hub.challenge') }),
    );
    res.writeHead(ok ? 200 : 403, { 'content-type': 'text/plain' }).end(ok ? (url.searchParams.get('hub.challenge') ?? '') : '');
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'GET, POST' }).end();
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MAX_BODY) {
      res.writeHead(413).end();
      req.destroy();
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const identity = req.headers[DELIVERY_HEADER.toLowerCase()];
    if (!verifySignature(raw, req.headers['x-hub-signature-256'], secret)) {
      console.log(JSON.stringify({ delivery: identity ?? null, refused: 'X-Hub-Signature-256 does not verify with this secret' }));
      res.writeHead(403).end();
      return;
    }
    let body: unknown = raw.toString('utf8');
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      // Printed as text.
    }
    console.log(JSON.stringify({ delivery: identity ?? null, verified: true, body }));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('EVENT_RECEIVED');
    delivered += 1;
    // The answer goes out first, so the server records the delivery as made.
    if (delivered === stopAfter) res.once('finish', () => server.close(() => process.exit(0)));
  });
});
server.listen(Number(values.port), values.host, () => {
  console.error(`webhook receiver on http://${values.host}:${values.port}/ (verify token "${verifyToken}"); Ctrl-C stops it`);
});
process.on('SIGINT', () => server.close(() => process.exit(0)));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
