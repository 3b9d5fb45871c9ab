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

/**
 * On SIGTERM or SIGINT: runs `close` once (listeners stop accepting and drain, then pools close), then exits 0 (1 if
 * closing failed). A second signal, or `deadlineMs` passing, exits at once with 1: an orchestrator that has waited long
 * enough should not have to send SIGKILL.
 */
export function exitOnSignals(close: () => Promise<void>, logger: Logger, deadlineMs = 60_000): void {
  let closing = false;
  const stop = (signal: NodeJS.Signals) => {
    if (closing) {
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal }, 'shutting down: draining in-flight requests');
    const deadline = setTimeout(() => {
      logger.error({ deadlineMs }, 'shutdown did not finish in time');
      process.exit(1);
    }, deadlineMs);
    deadline.unref();
    close().then(
      () => {
        logger.info('shut down');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
