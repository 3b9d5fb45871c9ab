import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import type { SupergraphManager } from '@apollo/gateway';
import type { Logger } from '../lib/logger.ts';

/**
 * Where the gateway's supergraph comes from, and how a new one is applied while the gateway serves: on SIGHUP (the
 * gateway process, bin/start-gateway.ts) and, when asked, whenever the file changes — what Apollo Router's `--hot-reload`
 * and Hive Gateway's file polling do.
 *
 * A reload hands the file's text to @apollo/gateway's `update` callback (a SupergraphManager's), which builds and
 * validates the new supergraph before swapping it in: a request already planned finishes on the plan it has, the next
 * one is planned on the new schema, and none is dropped. A file that does not build (unreadable, not a supergraph, a
 * subgraph the gateway has no URL for) is refused with one error line, and the supergraph serving keeps serving; the
 * same broken text is not reported again however often it is re-read, so a watched file written twice logs once.
 */

/** What a reload did: swapped a new supergraph in, found the one serving, or refused the file (the old one serves). */
export type SupergraphReloadOutcome = 'applied' | 'unchanged' | 'refused';

/** What asked for a reload (logged with it). */
export type SupergraphReloadTrigger = 'signal' | 'watch' | 'call';

export interface SupergraphSource {
  /** What @apollo/gateway loads the supergraph from (its `supergraphSdl` option). */
  manager: SupergraphManager;
  /** Reads the supergraph again and applies it if it changed; reloads asked for while one runs follow it, in turn. */
  reload(trigger?: SupergraphReloadTrigger): Promise<SupergraphReloadOutcome>;
  /** Stops watching the file. */
  close(): void;
}

type Update = (supergraphSdl: string) => void;

/** A supergraph that never changes (embedded mode, the bench): reloading it finds nothing new. */
export function fixedSupergraph(supergraphSdl: string): SupergraphSource {
  return {
    manager: { initialize: async () => ({ supergraphSdl }) },
    reload: async () => 'unchanged',
    close: () => undefined,
  };
}

export interface FileSupergraphOptions {
  /** The supergraph file (read once now: a file that cannot be read fails the start). */
  path: string;
  /** Reload whenever the file changes. */
  watch: boolean;
  logger: Logger;
  /** Told every reload's outcome (metrics). */
  onReload?: (outcome: SupergraphReloadOutcome) => void;
  /** Quiet period after the last change seen before the file is read: an editor or a copy writes in several steps. */
  debounceMs?: number;
}

/** The supergraph in a file, reloadable (see above). */
export function fileSupergraph(options: FileSupergraphOptions): SupergraphSource {
  const { logger } = options;
  const path = resolve(options.path);
  const initial = readFileSync(path, 'utf8');
  let update: Update | undefined;
  // The text serving, and the last text refused (by their hashes): neither is applied or reported twice.
  let serving = hashOf(initial);
  let refused: string | undefined;
  let queue: Promise<unknown> = Promise.resolve();

  const apply = async (trigger: SupergraphReloadTrigger): Promise<SupergraphReloadOutcome> => {
    if (!update) return 'unchanged';
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      return refuse(
        hashOf(`unreadable:${(error as NodeJS.ErrnoException).code ?? ''}`),
        trigger,
        `the file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    const hash = hashOf(text);
    if (hash === serving) {
      logger.info({ path, trigger }, 'supergraph unchanged');
      return 'unchanged';
    }
    if (hash === refused) return 'refused';
    try {
      update(text);
    } catch (error) {
      return refuse(hash, trigger, reasonOf(error));
    }
    serving = hash;
    refused = undefined;
    logger.info({ path, trigger, supergraph: hash.slice(0, 12) }, 'supergraph reloaded');
    return 'applied';
  };

  const refuse = (hash: string, trigger: SupergraphReloadTrigger, reason: string): SupergraphReloadOutcome => {
    if (hash !== refused) {
      refused = hash;
      logger.error({ path, trigger, reason }, 'supergraph refused: the one loaded before keeps serving');
    }
    return 'refused';
  };

  const reload = (trigger: SupergraphReloadTrigger = 'call'): Promise<SupergraphReloadOutcome> => {
    const next = queue.then(() => apply(trigger));
    queue = next.catch(() => undefined);
    return next.then((outcome) => {
      options.onReload?.(outcome);
      return outcome;
    });
  };

  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  if (options.watch) {
    // The directory is watched, not the file: a file replaced by a rename (how deploy tools and editors write) is a new
    // inode, which a watch on the old one would never report.
    const name = basename(path);
    watcher = watch(dirname(path), (_event, changed) => {
      if (changed !== null && changed !== name) return;
      clearTimeout(debounce);
      debounce = setTimeout(() => void reload('watch'), options.debounceMs ?? 200);
      debounce.unref();
    });
    watcher.on('error', (error) => logger.warn({ path, err: error }, 'supergraph file watch failed: SIGHUP still reloads'));
    watcher.unref();
  }

  return {
    manager: {
      initialize: async ({ update: apolloUpdate }) => {
        update = apolloUpdate;
        return { supergraphSdl: initial, cleanup: async () => void (update = undefined) };
      },
    },
    reload,
    close: () => {
      clearTimeout(debounce);
      watcher?.close();
    },
  };
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The first line of a build error, bounded: composition errors can list every problem of a large schema. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const first = message.split('\n', 1)[0] ?? '';
  return first.length > 500 ? `${first.slice(0, 500)}…` : first;
}
