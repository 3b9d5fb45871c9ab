import { afterAll, beforeAll } from 'vitest';
import { FuzzTally } from './fuzz-property.ts';
import { fuzzSettings, runsPerProperty } from './fuzz-settings.ts';
import { startFuzzSystem, type FuzzSystem, type FuzzSystemOptions } from './fuzz-system.ts';

/**
 * A door file's lifecycle: one system (in a process of its own, fuzz-system.ts) started before the properties and closed
 * after them, and the run's tally printed at the end — seed, cases, and failing cases per kind (crashes, hangs, unexpected 5xx, replies
 * outside the format, stored changes).
 */
export interface FuzzSuite {
  readonly system: FuzzSystem;
  readonly tally: FuzzTally;
}

export function useFuzzSystem(
  door: string,
  properties: number,
  options: FuzzSystemOptions = {},
  cleanup: () => void = () => undefined,
): FuzzSuite {
  let system: FuzzSystem | undefined;
  const tally = new FuzzTally(properties);
  beforeAll(async () => {
    const settings = fuzzSettings();
    console.log(
      `[fuzz ${door}] seed ${settings.seed}, ${runsPerProperty(properties)} runs for each of ${properties} properties (FUZZ_SEED=${settings.seed} replays this run)`,
    );
    const started = performance.now();
    system = await startFuzzSystem(options);
    console.log(`[fuzz ${door}] system started in ${Math.round(performance.now() - started)} ms`);
  }, 180_000);
  afterAll(async () => {
    console.log(tally.summary(door, `${options.topology ?? 'embedded'} ${process.env.TEST_DATABASE ?? 'pglite'}`));
    cleanup();
    await system?.close();
  }, 60_000);
  return {
    get system() {
      if (!system) throw new Error('the fuzz system has not started');
      return system;
    },
    tally,
  };
}
