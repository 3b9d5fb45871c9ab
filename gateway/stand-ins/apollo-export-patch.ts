import { createRequire } from 'node:module';
import { standInFile } from '../../lib/stand-ins/stand-in-gate.ts';
import type { LoadedFile } from '../../lib/stand-ins/stand-in-registry.ts';

/**
 * One function exported by a CommonJS file of an Apollo package, which that package calls through its exports object at
 * run time (`(0, module_1.fn)(…)`): the seam result-shaping-install.ts and operation-cache.ts replace. The release and
 * the file's presence are checked by the stand-in's gate (lib/stand-ins/stand-in-gate.ts) before anything here loads it.
 */
export interface ApolloExport {
  /** The package file, as the stand-in registry lists it (e.g. `@apollo/gateway`, `dist/resultShaping.js`). */
  file: LoadedFile;
  exportName: string;
  /** Keeps Apollo's own function on the replacement: found again even by a second copy of the installing module. */
  original: symbol;
}

type Patched<F> = F & { [key: symbol]: F | undefined };

const require = createRequire(import.meta.url);

function load(target: ApolloExport): Record<string, unknown> {
  return require(standInFile(target.file)) as Record<string, unknown>;
}

/**
 * Puts `wrap(Apollo's own)` in place of the export (`on`), or Apollo's own back (`on` false). Installing again wraps
 * Apollo's own, never a replacement. Throws when the file does not export a function of that name (the caller falls back).
 */
export function setApolloExport<F extends (...args: never[]) => unknown>(
  target: ApolloExport,
  on: boolean,
  wrap: (original: F) => F,
): void {
  // Off: only a file already loaded can carry a replacement (made by this module, or by another copy of it — a test
  // runner gives each test file its own copy over one require cache); nothing is loaded to find out.
  const module = on ? load(target) : loaded(target);
  if (!module) return;
  const current = module[target.exportName] as Patched<F> | undefined;
  if (typeof current !== 'function') {
    throw new Error(`${target.file.package}/${target.file.file} exports no function ${target.exportName}`);
  }
  const original = current[target.original] ?? current;
  module[target.exportName] = on ? Object.assign(wrap(original), { [target.original]: original }) : original;
}

/** The file's exports if it is already loaded, without loading it. */
function loaded(target: ApolloExport): Record<string, unknown> | undefined {
  let path: string;
  try {
    path = standInFile(target.file);
  } catch {
    return undefined;
  }
  return require.cache[path]?.exports as Record<string, unknown> | undefined;
}

/** Apollo's own function, whether or not it has been replaced. */
export function apolloOriginalExport<F>(target: ApolloExport): F {
  const current = load(target)[target.exportName] as Patched<F>;
  return current[target.original] ?? current;
}
