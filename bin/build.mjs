// @ts-check
/**
 * npm run build: the production build. The servers' TypeScript (lib, contracts, subgraphs, gateway, rest-adapter,
 * schema, bin) is transpiled file by file to JavaScript under dist/, in the same tree, with the `.ts` of relative imports
 * rewritten to `.js`; the files the code reads beside itself (each subgraph's schema.graphql, the supergraph, proto/) are
 * copied to the same places. `npm start` and the `start:*` scripts run dist/, so no process in production loads a
 * TypeScript loader, compiles at start-up or maps stack traces through source maps.
 *
 * Types are not checked here (`npm run check:types` does, and CI runs it): a build is the same syntax-only transform tsx
 * applies at run time, so what runs under `npm run dev` and under `npm start` is the same program.
 *
 *   node bin/build.mjs              build dist/ from scratch
 *   node bin/build.mjs --if-stale   only when a source is newer than the last build, or files came or went
 *
 * It also writes dist/pglite-template.tar, the embedded database a fresh ./data starts from (initialised and migrated:
 * lib/database/pglite-template.ts). `npm ci` builds (the `prepare` script) and `npm start` checks first (`prestart`), so a fresh clone and an edited one
 * both start on current code. Plain JavaScript, because it must run before anything is compiled.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = join(ROOT, 'dist');
const STAMP = join(OUT, '.build-stamp.json');
/**
 * The folders of the running system, transpiled; and bench/, whose server child (bench/server.ts) must run the same
 * compiled code as production to measure it. test/ runs from source.
 */
const SOURCE_DIRS = ['lib', 'contracts', 'subgraphs', 'gateway', 'rest-adapter', 'schema', 'bin', 'bench'];
/** Files read at run time relative to the module that reads them (import.meta.url), copied beside its output. */
const ASSET = /\.(graphql|proto)$/;
/** Whole folders read at run time (the gRPC service's proto files, resolved from subgraphs/users/grpc/). */
const ASSET_DIRS = ['proto'];
/** Inputs of the build besides the sources: a change of compiler settings or of the compiler is a change too. */
const SETTINGS = ['tsconfig.json', 'bin/build.mjs', 'package-lock.json'];

/** Every file under `dir` (relative to the repository), skipping generated and test-only folders. */
function walk(dir, files = []) {
  for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      // Generated and git-ignored trees: the bench's results and the peer gateway's own build.
      if (entry.name !== 'node_modules' && entry.name !== 'results' && entry.name !== '.build') walk(path, files);
    } else if (entry.isFile()) {
      files.push(path);
    }
  }
  return files;
}

function inputs() {
  const sources = SOURCE_DIRS.flatMap((dir) => walk(dir)).filter(
    (file) => (file.endsWith('.ts') && !file.endsWith('.d.ts')) || ASSET.test(file),
  );
  const assets = ASSET_DIRS.flatMap((dir) => walk(dir));
  return { sources, assets, all: [...sources, ...assets, ...SETTINGS] };
}

/** What the last build was made from: the newest input's modification time and the list of inputs. */
function fingerprint(all) {
  let newest = 0;
  for (const file of all) newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  return { newest, files: [...all].sort().join('\n') };
}

function isStale(all) {
  if (!existsSync(STAMP)) return true;
  try {
    const stamp = JSON.parse(readFileSync(STAMP, 'utf8'));
    const now = fingerprint(all);
    return stamp.newest !== now.newest || stamp.files !== now.files;
  } catch {
    return true;
  }
}

async function build({ sources, assets, all }) {
  const started = performance.now();
  // Loaded only when there is something to build: the check alone costs a few milliseconds.
  const { default: ts } = await import('typescript');
  const compilerOptions = {
    module: ts.ModuleKind.ESNext,
    target: ts.ScriptTarget.ES2023,
    verbatimModuleSyntax: true,
    rewriteRelativeImportExtensions: true,
    sourceMap: false,
  };
  rmSync(OUT, { recursive: true, force: true });
  let compiled = 0;
  for (const file of sources) {
    const target = join(OUT, file.endsWith('.ts') ? file.replace(/\.ts$/, '.js') : file);
    mkdirSync(dirname(target), { recursive: true });
    if (!file.endsWith('.ts')) {
      copyFileSync(join(ROOT, file), target);
      continue;
    }
    const { outputText, diagnostics } = ts.transpileModule(readFileSync(join(ROOT, file), 'utf8'), {
      fileName: file,
      compilerOptions,
      reportDiagnostics: true,
    });
    if (diagnostics && diagnostics.length > 0) {
      const text = ts.formatDiagnostics(diagnostics, {
        getCanonicalFileName: (name) => name,
        getCurrentDirectory: () => ROOT,
        getNewLine: () => '\n',
      });
      throw new Error(`build: ${file} does not compile:\n${text}`);
    }
    writeFileSync(target, outputText);
    compiled += 1;
  }
  for (const file of assets) {
    const target = join(OUT, file);
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(join(ROOT, file), target);
  }
  // dist/ is ESM like the sources (package.json "type": "module" applies above it too; this makes it explicit).
  writeFileSync(join(OUT, 'package.json'), '{ "type": "module" }\n');
  // The embedded database's template: an initialised, migrated PGlite data directory a fresh ./data starts from
  // (lib/database/pglite-template.ts), made by the code just compiled.
  execFileSync(process.execPath, [join(OUT, 'bin', 'make-pglite-template.js'), join(OUT, 'pglite-template.tar')], { stdio: 'inherit' });
  writeFileSync(STAMP, JSON.stringify(fingerprint(all)));
  const ms = Math.round(performance.now() - started);
  console.error(
    `build: ${compiled} modules and ${sources.length - compiled + assets.length} assets → ${relative(process.cwd(), OUT) || OUT} in ${ms} ms`,
  );
}

const files = inputs();
if (!process.argv.includes('--if-stale') || isStale(files.all)) await build(files);
