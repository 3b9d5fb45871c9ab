import pg from 'pg';

/**
 * LISTEN on PostgreSQL for DatabaseHandle.listen (database.ts): a dedicated client outside the pool — a pooled
 * connection is handed to other work between statements and would not keep the LISTEN — that reconnects by itself when
 * its connection drops (a database restart, a network cut), waiting 250 ms, then twice as long each time up to 30 s.
 * Notifications sent while it is disconnected are lost (PostgreSQL keeps none for absent listeners): a listener is a
 * wake-up, never the only way to learn of work, and its user polls as well. After a reconnect it calls `onNotify('')`
 * once, so that its user looks for what the gap hid without waiting for the next poll.
 */

export interface PostgresListenerOptions {
  connectionString: string;
  /** How long one connection attempt may take. */
  connectTimeoutMs: number;
  /** First and last wait between reconnection attempts (250 ms and 30 s by default). */
  minBackoffMs?: number;
  maxBackoffMs?: number;
}

/** Starts listening on `channel`; resolves after the first attempt (a failed one is retried in the background). */
export async function listenOnPostgres(
  options: PostgresListenerOptions,
  channel: string,
  onNotify: (payload: string) => void,
): Promise<() => Promise<void>> {
  const minBackoff = options.minBackoffMs ?? 250;
  const maxBackoff = options.maxBackoffMs ?? 30_000;
  let backoff = minBackoff;
  let closed = false;
  let connectedOnce = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  let attempt: Promise<void> | undefined;

  const notify = (payload: string): void => {
    try {
      onNotify(payload);
    } catch {
      // The listener's own failure is its own business; the connection stays.
    }
  };

  const scheduleReconnect = (): void => {
    if (closed || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      attempt = connect();
    }, backoff);
    retry.unref();
    backoff = Math.min(backoff * 2, maxBackoff);
  };

  async function connect(): Promise<void> {
    if (closed) return;
    const candidate = new pg.Client({
      connectionString: options.connectionString,
      connectionTimeoutMillis: options.connectTimeoutMs,
      keepAlive: true,
    });
    // A lost connection emits 'error' and then 'end'; without an 'error' listener it would end the process.
    candidate.on('error', () => undefined);
    candidate.on('notification', (message) => {
      if (message.channel === channel) notify(message.payload ?? '');
    });
    candidate.on('end', () => {
      if (client !== candidate) return;
      client = undefined;
      scheduleReconnect();
    });
    try {
      await candidate.connect();
      await candidate.query(`listen ${candidate.escapeIdentifier(channel)}`);
    } catch {
      candidate.end().catch(() => undefined);
      scheduleReconnect();
      return;
    }
    if (closed) {
      await candidate.end().catch(() => undefined);
      return;
    }
    client = candidate;
    backoff = minBackoff;
    if (connectedOnce) notify('');
    connectedOnce = true;
  }

  attempt = connect();
  await attempt;

  return async () => {
    closed = true;
    clearTimeout(retry);
    await attempt;
    const current = client;
    client = undefined;
    await current?.end().catch(() => undefined);
  };
}
