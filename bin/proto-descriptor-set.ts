/**
 * The gRPC contract's toolchain (proto/README.md), run with the buf CLI (devDependency @bufbuild/buf; no network, no BSR:
 * everything proto/ imports is vendored or one of protobuf's well-known types, which buf carries).
 *
 *   npm run proto:build     rebuilds proto/descriptor-set.binpb, the FileDescriptorSet server reflection serves;
 *                           refuses a change that breaks the committed contract unless given --allow-breaking
 *   npm run check:proto     buf lint; buf breaking against the committed descriptor set; and fails when the committed
 *                           set is not byte for byte what proto/ builds to (CI runs it next to check:codegen)
 *
 * The set is committed so that neither `npm ci && npm start` nor a production install (without devDependencies) needs buf.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const PROTO = join(ROOT, 'proto');
const DESCRIPTOR_SET = join(PROTO, 'descriptor-set.binpb');
const BUF = join(ROOT, 'node_modules', '.bin', 'buf');

function buf(args: string[]): void {
  if (!existsSync(BUF)) throw new Error('the buf CLI is not installed (devDependency @bufbuild/buf): run npm ci');
  execFileSync(BUF, args, { cwd: ROOT, stdio: 'inherit' });
}

/**
 * Builds proto/ (every file, with its imports, comments kept for tools that show them) as a plain FileDescriptorSet —
 * not a buf image, whose per-file extensions mean nothing to other tools — into `target`.
 */
function buildSet(target: string): void {
  buf(['build', 'proto', '--as-file-descriptor-set', '-o', target]);
}

function breaking(): void {
  if (!existsSync(DESCRIPTOR_SET)) return;
  buf(['breaking', 'proto', '--against', 'proto/descriptor-set.binpb']);
}

function main(): void {
  const mode = process.argv[2];
  const scratch = mkdtempSync(join(tmpdir(), 'tributary-proto-'));
  try {
    const built = join(scratch, 'descriptor-set.binpb');
    if (mode === '--write') {
      if (!process.argv.includes('--allow-breaking')) breaking();
      buildSet(built);
      copyFileSync(built, DESCRIPTOR_SET);
      console.error('proto: wrote proto/descriptor-set.binpb');
      return;
    }
    if (mode === '--check') {
      buf(['lint', 'proto']);
      if (!existsSync(DESCRIPTOR_SET)) throw new Error('proto/descriptor-set.binpb is missing: run npm run proto:build and commit it');
      breaking();
      buildSet(built);
      if (!readFileSync(built).equals(readFileSync(DESCRIPTOR_SET))) {
        throw new Error('proto/descriptor-set.binpb is not what proto/ builds to: run npm run proto:build and commit it');
      }
      console.error('proto: lint, breaking and descriptor set up to date');
      return;
    }
    throw new Error('usage: proto-descriptor-set.ts --write [--allow-breaking] | --check');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

try {
  main();
} catch (error) {
  // A failed buf command has already printed what it found; execFileSync's own message would only repeat its command line.
  const failedCommand = error instanceof Error && 'status' in error && typeof error.status === 'number';
  if (!failedCommand) console.error(`proto: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
