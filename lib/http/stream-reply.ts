import type { ServerResponse } from 'node:http';

/**
 * Writes a streamed reply (a subscription's events, @defer's parts) to an HTTP response, bounded: the next chunk is taken
 * from the stream only once the previous one was accepted by the socket (past `maxBufferedBytes` queued, the response
 * waits for 'drain'), and a client that stops reading for `stallTimeoutMs` is cut off — a slow consumer costs a
 * bounded buffer, never memory that grows with the stream. When the client goes away the stream is ended at once
 * (`return()`: its subscription closes), not at its next event.
 */
export async function writeStreamReply(
  res: ServerResponse,
  chunks: AsyncIterableIterator<string>,
  options: { maxBufferedBytes?: number; stallTimeoutMs?: number; onStall?(): void } = {},
): Promise<void> {
  const maxBuffered = options.maxBufferedBytes ?? 1_048_576;
  const stallTimeout = options.stallTimeoutMs ?? 30_000;
  let gone = false;
  const onClose = () => {
    if (gone) return;
    gone = true;
    void chunks.return?.();
  };
  // A client that goes away sends FIN; Node's server keeps a half-open socket until the response ends, so 'close' would
  // come only with a later write's failure. A streamed reply's client never half-closes while it reads: its end is the end.
  const socket = res.socket;
  const onEnd = () => {
    onClose();
    res.destroy();
  };
  socket?.once('end', onEnd);
  res.once('close', onClose);
  res.flushHeaders();
  try {
    for (;;) {
      const step = await chunks.next();
      if (step.done || gone) break;
      const accepted = res.write(step.value);
      if (!accepted && res.writableLength > maxBuffered && !(await drained(res, stallTimeout))) {
        if (!gone) options.onStall?.();
        res.destroy();
        break;
      }
    }
  } catch {
    // A stream that fails mid-way has nothing more to say: the response ends (its last part told the client what it could).
  } finally {
    socket?.off('end', onEnd);
    res.off('close', onClose);
    if (!gone && !res.destroyed) res.end();
    if (!gone) await chunks.return?.();
  }
}

/** Resolves true on 'drain', false after `timeoutMs` or when the response closes first. */
function drained(res: ServerResponse, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const done = (value: boolean) => {
      clearTimeout(timer);
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(value);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}
