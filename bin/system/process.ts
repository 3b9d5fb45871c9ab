import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { ConfigError, loadConfig, type Config } from '../../lib/config.ts';
import { createLogger, type Logger } from '../../lib/logger.ts';

/**
 * Process-level set-up shared by the entrypoints: a .env file if there is one, Apollo's telemetry off (nothing leaves the
 * machine), configuration read once, a logger, and graceful shutdown on SIGTERM/SIGINT; and V8's heap growth
 * (HEAP_GROWING_PERCENT), which V8 reads each time it sets the next full GC's threshold, so setting it here, before the
 * servers start, governs the whole life of the process.
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
  if (config.heapGrowingPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
  return { config, logger: createLogger({ level: config.logLevel, name }) };
}

/**
 * The last net under every request: an error that escapes all of a request's own handling (an 'error' event nobody
 * listens to, a rejected promise nobody awaits) is logged at error level — with the id of the request being served, by
 * the logger's mixin — and the process goes on serving. Each door answers its own failures in its own format first
 * (Express 5 catches rejected handlers, every stream a request opens has an error listener, gRPC handlers map every
 * thrown error); what reaches this point is a bug, and ending the process for it would fail every other request in
 * flight and hand any client a way to take the service down. Only the servers' entrypoints install it: command-line tools
 * should fail, and tests let the runner see such errors as failures.
 */
export function keepServingOnEscapedErrors(logger: Logger): void {
  process.on('uncaughtException', (error, origin) => {
    logger.error({ err: error, origin }, 'an error escaped its request; the process keeps serving');
  });
  process.on('unhandledRejection', (reason) => {
    logger.error({ err: reason }, 'a rejected promise escaped its request; the process keeps serving');
  });
}

/** How long a shutdown may take in all before the process exits anyway: the pause, the grace, and 10 s to close the rest. */
export function shutdownDeadlineMs(telemetry: { shutdownDelayMs: number; shutdownGraceMs: number }): number {
  return telemetry.shutdownDelayMs + telemetry.shutdownGraceMs + 10_000;
}

/**
 * On SIGTERM or SIGINT: runs `close` once (listeners stop accepting and drain, then pools close), then exits 0 (1 if
 * closing failed). A second signal, or `deadlineMs` passing, exits at once with 1: an orchestrator that has waited long
 * enough should not have to send SIGKILL.
 *
 * SIGHUP runs `reload` where the process has something to reload (the gateway process: its supergraph), as Apollo
 * Router and most daemons do; elsewhere it stops the process as SIGTERM does — draining, where Node's default would end
 * it at once with every request in flight.
 */
export function exitOnSignals(close: () => Promise<void>, logger: Logger, deadlineMs = 60_000, reload?: () => Promise<unknown>): void {
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
  process.on('SIGHUP', (signal) => {
    if (!reload) return stop(signal);
    if (closing) return;
    logger.info({ signal }, 'reloading the supergraph');
    // The reload logs its own outcome (gateway/supergraph-source.ts); a failure to reload never stops the process.
    reload().catch((error: unknown) => logger.error({ err: error }, 'supergraph reload failed'));
  });
}
