import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Response } from 'express';

/**
 * Files of installed packages that the browser tools are served from (Swagger UI, GraphiQL, React's UMD builds): nothing
 * is fetched from a CDN, so the pages work offline and every asset comes from this server.
 */

const require = createRequire(import.meta.url);

/**
 * The absolute path of `relativePath` inside the installed package `packageName`. Resolved through the package's
 * package.json (which every package exports), since UMD builds are usually outside a package's `exports`. Throws, naming
 * the file, when it is missing, so a broken install fails at start-up rather than as a blank page.
 */
export function packageAsset(packageName: string, relativePath: string): string {
  const file = join(dirname(require.resolve(`${packageName}/package.json`)), relativePath);
  if (!existsSync(file)) throw new Error(`${packageName}/${relativePath} is missing: reinstall the dependencies (npm ci)`);
  return file;
}

/** Sends an installed package's file; versioned by the install, so browsers may keep it for a day. */
export function sendPackageAsset(res: Response, file: string): void {
  res.sendFile(file, { maxAge: 86_400_000, dotfiles: 'deny' });
}
