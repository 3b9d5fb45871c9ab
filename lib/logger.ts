import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { currentRequestId } from './request-context.ts';

export type Logger = PinoLogger;

/**
 * Where secrets can appear in what is logged: request headers, bodies of failed requests (body-parser errors carry the
 * raw body), OAuth 1.0a parameters and credentials of every kind. Each is replaced by "[redacted]" wherever it sits in a
 * logged object (top level or one level down). Access logs never write the URL's query string (access_token travels
 * there) nor headers at all; these paths are the net under everything else.
 */
const REDACTED_PATHS = [
  'authorization',
  'cookie',
  'password',
  'access_token',
  'token',
  'tokenSecret',
  'consumerSecret',
  'secret',
  'oauth_signature',
  'oauth_token',
  'media_data',
  'mediaData',
  'body',
  'headers.authorization',
  'headers.cookie',
  'headers["x-signed-request"]',
  'headers["x-tributary-trusted-caller"]',
].flatMap((path) => [path, `*.${path}`]);

/**
 * Structured JSON logs. Every line written while a request is served carries its `requestId` (see
 * lib/request-context.ts); credentials are redacted wherever they appear in logged objects.
 * @param destination where lines go (standard output by default; tests pass a stream to read them)
 */
export function createLogger(options: { level: string; name?: string; destination?: DestinationStream }): Logger {
  const settings = {
    level: options.level,
    ...(options.name ? { name: options.name } : {}),
    mixin() {
      const requestId = currentRequestId();
      return requestId === undefined ? {} : { requestId };
    },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
