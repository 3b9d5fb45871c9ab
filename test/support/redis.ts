import { Socket } from 'node:net';

/** The Redis the fetch cache's shared level is tested against (REDIS_URL, .ci/run starts it; this machine runs one). */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * Whether Redis answers PING at TEST_REDIS_URL. A suite that needs it runs only then — except where the run requires
 * it (TEST_REQUIRE_REDIS, set by .ci/run): there a missing Redis fails the suite instead of skipping it.
 */
export async function redisAnswers(): Promise<boolean> {
  if (process.env.TEST_REQUIRE_REDIS) return true;
  const url = new URL(TEST_REDIS_URL);
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(url.port || 6379), url.hostname, () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}
