import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * One function exported by a CommonJS file of an Apollo package, which that package calls through its exports object at
 * run time (`(0, module_1.fn)(…)`): the seam result-shaping-install.ts and operation-cache-install.ts replace.
 */
export interface ApolloExport {
  /** The package, e.g. `@apollo/gateway`. */
  packageName: string;
  /** The file beside the package's main, e.g. `resultShaping.js`. */
  file: string;
  exportName: string;
  /** The only release the replacement was checked against. */
  checkedVersion: string;
  /** What the replacement is, for the reason given when it is not installed ("the operation cache was checked against"). */
  checkedBy: string;
  /** Keeps Apollo's own function on the replacement: found again even by a second copy of the installing module. */
  original: symbol;
}

export type ExportPatchInstall = { installed: true } | { installed: false; reason: string };

type Patched<F> = F & { [key: symbol]: F | undefined };

function load(target: ApolloExport): { version: string; module: Record<string, unknown> } {
  const require = createRequire(import.meta.url);
  const main = require.resolve(target.packageName);
  const { version } = JSON.parse(readFileSync(join(dirname(dirname(main)), 'package.json'), 'utf8')) as { version: string };
  return { version, module: require(join(dirname(main), target.file)) as Record<string, unknown> };
}

/**
 * Replaces the export with `wrap(Apollo's own)`, only over the checked release; with any other, or when the export is not
 * a function, Apollo's stays and the reason is returned. Installing again wraps Apollo's own, never a replacement.
 */
export function installOverApolloExport<F extends (...args: never[]) => unknown>(target: ApolloExport, wrap: (original: F) => F): ExportPatchInstall {
  const { version, module } = load(target);
  if (version !== target.checkedVersion) {
    return { installed: false, reason: `${target.packageName} is ${version}, ${target.checkedBy} ${target.checkedVersion}` };
  }
  const current = module[target.exportName] as Patched<F> | undefined;
  if (typeof current !== 'function') {
    return { installed: false, reason: `${target.packageName}/dist/${target.file} exports no ${target.exportName}` };
  }
  const original = current[target.original] ?? current;
  module[target.exportName] = Object.assign(wrap(original), { [target.original]: original });
  return { installed: true };
}

/** Apollo's own function, whether or not it has been replaced. */
export function apolloOriginalExport<F>(target: ApolloExport): F {
  const current = load(target).module[target.exportName] as Patched<F>;
  return current[target.original] ?? current;
}
