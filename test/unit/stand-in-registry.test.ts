/**
 * The stand-ins' registry (lib/stand-ins/stand-in-registry.ts) against what is installed and what the repository holds,
 * and its gate (stand-in-gate.ts): a release other than the one checked, or a file gone, turns a stand-in off with a
 * warning that says what to re-verify — before anything of the package is loaded.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lib/config.ts';
import type { Logger } from '../../lib/logger.ts';
import { allStandIns, createStandIns, decideStandIn, installedVersion, locatePackage } from '../../lib/stand-ins/stand-in-gate.ts';
import {
  LIBRARY_COPIES,
  LIBRARY_COPY_IDS,
  STAND_IN_IDS,
  STAND_INS,
  type StandIn,
  type StandInId,
} from '../../lib/stand-ins/stand-in-registry.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** A logger that keeps what it is told. */
function recordingLogger() {
  const lines: { level: 'warn' | 'info'; entry: Record<string, unknown>; message: string }[] = [];
  const logger = {
    warn: (entry: Record<string, unknown>, message: string) => void lines.push({ level: 'warn', entry, message }),
    info: (entry: Record<string, unknown>, message: string) => void lines.push({ level: 'info', entry, message }),
  } as unknown as Pick<Logger, 'warn' | 'info'>;
  return Object.assign(logger, { lines });
}

/** A package folder holding only a package.json of this version (and the files named). */
function fakePackage(version: string, files: string[] = []): string {
  const folder = mkdtempSync(join(tmpdir(), 'stand-in-package-'));
  writeFileSync(join(folder, 'package.json'), JSON.stringify({ name: 'fake', version }));
  for (const file of files) {
    mkdirSync(join(folder, file, '..'), { recursive: true });
    writeFileSync(join(folder, file), '');
  }
  return folder;
}

describe('the stand-in registry against the installed packages', () => {
  // The upgrade gate: a failure here names the stand-in, the package, and what to re-verify before updating the entry.
  it.each(STAND_IN_IDS)('%s serves over the installed releases', (id) => {
    expect(decideStandIn(id, true)).toEqual({ id, enabled: true });
  });

  it.each(STAND_IN_IDS)('%s names files that exist: its source, its comparison test, every package file it loads', (id) => {
    const standIn = STAND_INS[id];
    expect(existsSync(join(root, standIn.source)), standIn.source).toBe(true);
    expect(existsSync(join(root, standIn.comparisonTest)), standIn.comparisonTest).toBe(true);
    for (const loaded of standIn.loads) expect(existsSync(join(locatePackage(loaded.package, loaded.from)!, loaded.file))).toBe(true);
    expect(readFileSync(join(root, standIn.source), 'utf8')).toContain(`Stand-in \`${id}\``);
  });

  it('documents every switch in .env.example and gateway/stand-ins/README.md', () => {
    const example = readFileSync(join(root, '.env.example'), 'utf8');
    const readme = readFileSync(join(root, 'gateway/stand-ins/README.md'), 'utf8');
    expect(example).toMatch(/^STAND_INS=on$/m);
    for (const id of STAND_IN_IDS) {
      expect(example).toMatch(new RegExp(`^# ${STAND_INS[id].switchVariable}=on$`, 'm'));
      expect(readme).toContain(STAND_INS[id].switchVariable);
      expect(readme).toContain(STAND_INS[id].comparisonTest);
      for (const release of STAND_INS[id].checked) expect(readme).toContain(`${release.package} ${release.version}`);
    }
  });

  it('reads the copy a dependency uses: body-parser as express has it', () => {
    expect(installedVersion({ package: 'body-parser', from: 'express' })).toBe('2.4.0');
    expect(installedVersion({ package: 'no-such-package-here' })).toBeUndefined();
  });
});

describe('the library copies against the installed packages', () => {
  // Code that copies a library's behaviour with no route of the library's to fall back to: no gate, so this is the one
  // place an upgrade is caught. A failure names the copy, the package and its comparison test.
  it.each(LIBRARY_COPY_IDS)('%s was checked against the installed releases', (id) => {
    const copy = LIBRARY_COPIES[id];
    const installed = copy.checked.map((release) => `${release.package} ${installedVersion(release) ?? 'missing'}`);
    const checked = copy.checked.map((release) => `${release.package} ${release.version}`);
    expect(installed, `re-verify ${copy.source} with ${copy.comparisonTest}, then update its entry`).toEqual(checked);
  });

  it.each(LIBRARY_COPY_IDS)('%s names files that exist, is labelled in its source and listed in gateway/stand-ins/README.md', (id) => {
    const copy = LIBRARY_COPIES[id];
    expect(existsSync(join(root, copy.source)), copy.source).toBe(true);
    expect(existsSync(join(root, copy.comparisonTest)), copy.comparisonTest).toBe(true);
    expect(readFileSync(join(root, copy.source), 'utf8')).toContain(`Library copy \`${id}\``);
    const readme = readFileSync(join(root, 'gateway/stand-ins/README.md'), 'utf8');
    expect(readme).toContain(`\`${id}\``);
    expect(readme).toContain(copy.comparisonTest);
  });
});

describe('the gate', () => {
  const shaping = STAND_INS['result-shaping'];

  it('turns a stand-in off, with a warning naming what to re-verify, when another release is installed', () => {
    const newer = fakePackage('2.15.0', ['dist/resultShaping.js']);
    const decision = decideStandIn('result-shaping', true, {
      locate: (name) => (name === '@apollo/gateway' ? newer : locatePackage(name)),
    });
    expect(decision).toEqual({
      id: 'result-shaping',
      enabled: false,
      warning: true,
      reason:
        '@apollo/gateway is 2.15.0; the compiled result shaping was checked against 2.14.4: re-verify with test/unit/result-shaping.test.ts, then update lib/stand-ins/stand-in-registry.ts',
    });
  });

  it('turns a stand-in off with a warning when a package it copies is not installed', () => {
    const decision = decideStandIn('undici-subgraph-client', true, {
      locate: (name, from) => (name === 'undici' ? undefined : locatePackage(name, from)),
    });
    expect(decision).toMatchObject({
      enabled: false,
      warning: true,
      reason: expect.stringMatching(/^undici is not installed; undici's pool/),
    });
  });

  it('turns a stand-in off with a warning when a file it loads is missing (a release that renamed it), without loading anything', () => {
    const renamed: StandIn = { ...shaping, loads: [{ package: '@apollo/gateway', file: 'dist/resultShapingRenamed.js' }] };
    const logger = recordingLogger();
    const standIns = createStandIns(allStandIns(true), logger, { registry: { ...STAND_INS, 'result-shaping': renamed } });
    expect(standIns.enabled('result-shaping')).toBe(false);
    expect(standIns.enabled('result-shaping')).toBe(false);
    expect(standIns.enabled('operation-cache')).toBe(true);
    expect(logger.lines).toEqual([
      {
        level: 'warn',
        entry: {
          standIn: 'result-shaping',
          reason:
            '@apollo/gateway/dist/resultShapingRenamed.js is missing; the compiled result shaping needs it: re-verify with test/unit/result-shaping.test.ts, then update lib/stand-ins/stand-in-registry.ts',
        },
        message: "stand-in off, the library's own route serves: the compiled result shaping",
      },
    ]);
  });

  it('says only "switched off", at info level, when the switch did it', () => {
    const logger = recordingLogger();
    const standIns = createStandIns({ ...allStandIns(true), 'operation-fast-lane': false }, logger);
    expect(standIns.decisions().filter((decision) => !decision.enabled)).toEqual([
      {
        id: 'operation-fast-lane',
        enabled: false,
        warning: false,
        reason: 'switched off (STAND_IN_OPERATION_FAST_LANE=off or STAND_INS=off)',
      },
    ]);
    expect(logger.lines.map((line) => [line.level, line.message])).toEqual([['info', 'stand-in switched off: the operation fast lane']]);
  });
});

describe('the switches (configuration)', () => {
  const switches = (env: Record<string, string>) => loadConfig(env).standIns;
  const only = (on: boolean, except: Partial<Record<StandInId, boolean>>) => ({ ...allStandIns(on), ...except });

  it('are all on by default, all off with STAND_INS=off, and each one set by its own variable over that', () => {
    expect(switches({})).toEqual(allStandIns(true));
    expect(switches({ STAND_INS: 'off' })).toEqual(allStandIns(false));
    expect(switches({ STAND_IN_RESULT_SHAPING: 'off' })).toEqual(only(true, { 'result-shaping': false }));
    expect(switches({ STAND_INS: 'off', STAND_IN_REST_FAST_PATH: 'on' })).toEqual(only(false, { 'rest-fast-path': true }));
  });

  it('refuse a value that is not on or off, naming the variable', () => {
    expect(() => switches({ STAND_IN_LEAN_JSON_BODY: 'fast' })).toThrow(
      'configuration: STAND_IN_LEAN_JSON_BODY must be true or false, got "fast"',
    );
  });
});
