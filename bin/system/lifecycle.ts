import { setTimeout as delay } from 'node:timers/promises';
import type { TokenService } from '../../lib/auth/auth.ts';
import type { Config, SubgraphName } from '../../lib/config.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { PgliteTemplateImage } from '../../lib/database/pglite-template-image.ts';
import type { RunningHttpServer } from '../../lib/http/http-server.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Readiness } from '../../lib/telemetry/readiness.ts';
import type { Telemetry } from '../../lib/telemetry/telemetry.ts';
import type { StandIns } from '../../lib/stand-ins/stand-in-gate.ts';
import type { SupergraphReloadOutcome, SupergraphReloadTrigger } from '../../gateway/supergraph-source.ts';

/**
 * What a running process is and how it stops. Every process shuts down in two steps: first every listener stops
 * accepting at once and drains (in-flight requests, an upload in progress included, finish; readiness already says
 * DOWN), then the parts behind them close in reverse order of start (gateway, workers, blob store, database pool, traces
 * flushed last).
 */

export interface RunningSystem {
  config: Config;
  tokens: TokenService;
  /** Present when this process owns a database connection. */
  database: DatabaseHandle | undefined;
  gatewayUrl: string | undefined;
  restUrl: string | undefined;
  /** The parent-platform host of the social graph (second REST listener). */
  socialParentUrl: string | undefined;
  grpcAddress: string | undefined;
  /** The standalone gRPC process's HTTP listener (/health, /ready, /metrics). */
  grpcStatusUrl: string | undefined;
  subgraphUrls: Partial<Record<SubgraphName, string>>;
  readiness: Readiness;
  /** The gateway's supergraph read again and swapped in if it changed (absent where no gateway runs). */
  reloadSupergraph?: (trigger?: SupergraphReloadTrigger) => Promise<SupergraphReloadOutcome>;
  /** Stops listeners first (draining in-flight requests), then closes the database. */
  close(): Promise<void>;
}

export interface SystemOptions {
  /** The clock of the social graph's expiry rules; tests drive it. */
  now?: () => Date;
  /** Which stand-ins serve; by default the configuration's switches, gated (lib/stand-ins/). Tests pass their own. */
  standIns?: StandIns;
  /** A database handle to share (two systems of one test on one database); not closed here. */
  database?: DatabaseHandle;
  /** The template a new embedded database starts from (a file, or one already read); by default the build's (dist/pglite-template.tar). */
  pgliteTemplate?: string | PgliteTemplateImage;
}

/** What a process has started, stopped in two steps (see above). */
export class Lifecycle {
  private readonly listeners: (() => Promise<void>)[] = [];
  private readonly resources: (() => Promise<void>)[] = [];
  private readonly draining: (() => void)[] = [];
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly telemetry: Telemetry,
    private readonly logger: Logger,
    /** SHUTDOWN_DELAY_MS: how long the process serves on, not ready, before its listeners stop accepting. */
    private readonly delayMs: number,
  ) {
    this.resources.push(() => telemetry.shutdown());
  }

  /** A listener: stops accepting and drains in the first step, alongside every other listener. */
  listener(close: () => Promise<void>): void {
    this.listeners.push(close);
  }

  /** An HTTP listener: its replies say `Connection: close` from the start of shutdown (the pause), then as a listener. */
  http(server: RunningHttpServer): void {
    this.draining.push(() => server.drain());
    this.listener(() => server.close());
  }

  /** A part behind the listeners, closed after them, the last added first. */
  resource(close: () => Promise<void>): void {
    this.resources.push(close);
  }

  close(): Promise<void> {
    this.stopping ??= this.run();
    return this.stopping;
  }

  private async run(): Promise<void> {
    this.telemetry.readiness.markStopping();
    for (const drain of this.draining) drain();
    if (this.delayMs > 0) {
      // Load balancers probe /ready every few seconds: until they have seen the 503, they keep sending requests, which
      // a closed listener would refuse.
      this.logger.info({ delayMs: this.delayMs }, 'not ready; serving on until load balancers have seen it');
      await delay(this.delayMs);
    }
    const drained = await Promise.allSettled(this.listeners.map((close) => close()));
    for (const outcome of drained) {
      if (outcome.status === 'rejected') this.logger.warn({ err: outcome.reason }, 'error while draining a listener');
    }
    for (const close of this.resources.reverse()) {
      try {
        await close();
      } catch (error) {
        this.logger.warn({ err: error }, 'error while shutting down');
      }
    }
  }
}

/** What a process serves (what it does not serve is undefined), its readiness and its shutdown. */
export function runningSystem(
  config: Config,
  tokens: TokenService,
  telemetry: Telemetry,
  lifecycle: Lifecycle,
  serves: Partial<Omit<RunningSystem, 'config' | 'tokens' | 'readiness' | 'close'>>,
): RunningSystem {
  return {
    config,
    tokens,
    database: undefined,
    gatewayUrl: undefined,
    restUrl: undefined,
    socialParentUrl: undefined,
    grpcAddress: undefined,
    grpcStatusUrl: undefined,
    subgraphUrls: {},
    ...serves,
    readiness: telemetry.readiness,
    close: () => lifecycle.close(),
  };
}
