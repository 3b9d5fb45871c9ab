import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Logger } from '../logger.ts';
import { STAND_IN_IDS, STAND_INS, type CheckedRelease, type LoadedFile, type StandIn, type StandInId } from './stand-in-registry.ts';

/**
 * The gate every stand-in passes before it loads anything (conventions §14): its switch, then each release it was checked
 * against, then each package file it loads. Only package.json files are read and file existence checked — no module of
 * the package is loaded — so a release that renamed or removed a file turns the stand-in off instead of failing the
 * process, and the library's own route serves.
 */

export type StandInDecision =
  | { id: StandInId; enabled: true }
  | {
      id: StandInId;
      enabled: false;
      /** Why the library's route serves. */
      reason: string;
      /** False when only the switch turned it off (asked for); true when the installed packages did (a warning). */
      warning: boolean;
    };

/** Where an installed package's folder is, or undefined when it is not installed (reads no module of it). */
export type PackageLocator = (packageName: string, from?: string) => string | undefined;

const requireHere = createRequire(import.meta.url);

/** Finds a package's folder through Node's module search paths, from this project or from the package named in `from`. */
export const locatePackage: PackageLocator = (packageName, from) => {
  let searchPaths = requireHere.resolve.paths(packageName) ?? [];
  if (from !== undefined) {
    const fromFolder = locatePackage(from);
    if (fromFolder === undefined) return undefined;
    searchPaths = createRequire(join(fromFolder, 'package.json')).resolve.paths(packageName) ?? [];
  }
  for (const folder of searchPaths) {
    const candidate = join(folder, packageName);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
  }
  return undefined;
};

/** The installed release of a package, or undefined when it is not installed. */
export function installedVersion(
  release: Pick<CheckedRelease, 'package' | 'from'>,
  locate: PackageLocator = locatePackage,
): string | undefined {
  const folder = locate(release.package, release.from);
  if (folder === undefined) return undefined;
  const { version } = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { version?: unknown };
  return typeof version === 'string' ? version : undefined;
}

/** What to do to trust a stand-in again after an upgrade. */
function reverify(standIn: StandIn): string {
  return `re-verify with ${standIn.comparisonTest}, then update lib/stand-ins/stand-in-registry.ts`;
}

/**
 * Whether a stand-in serves: `switchedOn` is its configured switch; the installed packages are checked against the
 * registry's entry (`standIn`, the registry's own unless a test passes another).
 */
export function decideStandIn(
  id: StandInId,
  switchedOn: boolean,
  options: { standIn?: StandIn; locate?: PackageLocator } = {},
): StandInDecision {
  const standIn = options.standIn ?? STAND_INS[id];
  const locate = options.locate ?? locatePackage;
  if (!switchedOn) return { id, enabled: false, reason: `switched off (${standIn.switchVariable}=off or STAND_INS=off)`, warning: false };
  for (const release of standIn.checked) {
    const version = installedVersion(release, locate);
    if (version !== release.version) {
      const installed = version === undefined ? 'is not installed' : `is ${version}`;
      return {
        id,
        enabled: false,
        reason: `${release.package} ${installed}; ${standIn.title} was checked against ${release.version}: ${reverify(standIn)}`,
        warning: true,
      };
    }
  }
  for (const loaded of standIn.loads) {
    const folder = locate(loaded.package, loaded.from);
    if (folder === undefined || !existsSync(join(folder, loaded.file))) {
      return {
        id,
        enabled: false,
        reason: `${loaded.package}/${loaded.file} is missing; ${standIn.title} needs it: ${reverify(standIn)}`,
        warning: true,
      };
    }
  }
  return { id, enabled: true };
}

/** The absolute path of a file a stand-in loads, once its gate has passed. */
export function standInFile(loaded: LoadedFile, locate: PackageLocator = locatePackage): string {
  const folder = locate(loaded.package, loaded.from);
  if (folder === undefined) throw new Error(`${loaded.package} is not installed`);
  return join(folder, loaded.file);
}

/** The switches of a process (config.standIns) turned into decisions, each made and logged once. */
export interface StandIns {
  /** Whether the stand-in serves in this process. */
  enabled(id: StandInId): boolean;
  /** Every stand-in's decision (for the start-up log and /metrics). */
  decisions(): StandInDecision[];
}

export function createStandIns(
  switches: Readonly<Record<StandInId, boolean>>,
  logger: Pick<Logger, 'warn' | 'info'>,
  /** Another registry or package locator (tests: a release that renamed a file, another version installed). */
  options: { registry?: Readonly<Record<StandInId, StandIn>>; locate?: PackageLocator } = {},
): StandIns {
  const registry = options.registry ?? STAND_INS;
  const decided = new Map<StandInId, StandInDecision>();
  const decide = (id: StandInId): StandInDecision => {
    let decision = decided.get(id);
    if (!decision) {
      decision = decideStandIn(id, switches[id], { standIn: registry[id], ...(options.locate && { locate: options.locate }) });
      decided.set(id, decision);
      if (!decision.enabled) {
        const entry = { standIn: id, reason: decision.reason };
        if (decision.warning) logger.warn(entry, `stand-in off, the library's own route serves: ${registry[id].title}`);
        else logger.info(entry, `stand-in switched off: ${registry[id].title}`);
      }
    }
    return decision;
  };
  return {
    enabled: (id) => decide(id).enabled,
    decisions: () => STAND_IN_IDS.map(decide),
  };
}

/** Every stand-in on (the default) or off. */
export function allStandIns(on: boolean): Record<StandInId, boolean> {
  return Object.fromEntries(STAND_IN_IDS.map((id) => [id, on])) as Record<StandInId, boolean>;
}
