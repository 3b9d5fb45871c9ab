import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

/** Structured JSON logs; credentials are redacted wherever they appear in logged objects. */
export function createLogger(options: { level: string; name?: string }): Logger {
  return pino({
    level: options.level,
    ...(options.name ? { name: options.name } : {}),
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        'headers.authorization',
        '*.headers.authorization',
        'password',
        '*.password',
        'access_token',
        '*.access_token',
      ],
      censor: '[redacted]',
    },
  });
}
