import { existsSync } from 'node:fs';
import { ConfigError, loadConfig, type Config } from '../lib/config.ts';
import { createLogger, type Logger } from '../lib/logger.ts';

/**
 * Process-level set-up shared by the entrypoints: a .env file if there is one, Apollo's telemetry off (nothing leaves the
 * machine), configuration read once, a logger, and graceful shutdown on SIGTERM/SIGINT.
 */
export function prepareProcess(name: string): { config: Config; logger: Logger } {
  if (existsSync('.env')) process.loadEnvFile('.env');
  process.env.APOLLO_TELEMETRY_DISABLED = '1';
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  return { config, logger: createLogger({ level: config.logLevel, name }) };
}

/** Closes `close` once on SIGTERM or SIGINT, then exits 0 (1 if closing failed). */
export function exitOnSignals(close: () => Promise<void>, logger: Logger): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
