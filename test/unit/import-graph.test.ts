import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The import graph of product code (issue 37): no file imports itself back through others (a cycle), and no folder's
 * rooms (its files, and its subfolders each as one) import each other in a loop — an import that runs back up, as the
 * door's types made one: gateway/live/ → gateway-door.ts → gateway/live/. And `bin/` holds
 * entrypoints only: every file directly in it is run by a package.json script or by the build (bin/build.mjs).
 * The lint walls (eslint.config.js) hold which top folder may import which; this holds the shape inside them.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRODUCT = ['lib', 'contracts', 'subgraphs', 'gateway', 'rest-adapter', 'schema', 'bin'];

function productFiles(): string[] {
  const listed = (args: string[]) =>
    execFileSync('git', ['ls-files', ...args, ...PRODUCT.map((folder) => `${folder}/*.ts`)], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(`${listed([])}\n${listed(['--others', '--exclude-standard'])}`.split('\n'))]
    .filter((file) => file.endsWith('.ts'))
    .sort();
}

/** Relative imports and re-exports (static, and import() of a written-out path), type-only ones included. */
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^;'"]*?\bfrom\s*'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g;

function importGraph(): Map<string, string[]> {
  const files = productFiles();
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(IMPORT)) {
      const target = normalize(join(dirname(file), match[1] ?? match[2]!));
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Every cycle's files, found by a depth-first walk (each cycle once, from where the walk met it). */
function cycles(graph: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    path.push(file);
    for (const target of graph.get(file) ?? []) {
      if (state.get(target) === 'open') found.push(path.slice(path.indexOf(target)));
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  return found;
}

/**
 * Loops between rooms, as farm-studio draws a folder: each file directly in the folder is a room, and each of its
 * subfolders is one room. An import from a subfolder to a file of the folder that itself imports the subfolder is such
 * a loop (an arrow that runs back up); a subfolder importing a file of its parent that imports nothing of it is not.
 */
function roomLoops(graph: Map<string, string[]>): string[] {
  const folders = new Set<string>();
  for (const file of graph.keys()) for (let folder = dirname(file); folder !== '.'; folder = dirname(folder)) folders.add(folder);
  const found: string[] = [];
  for (const folder of folders) {
    const roomOf = (file: string): string | undefined => {
      if (!file.startsWith(`${folder}/`)) return undefined;
      const rest = file.slice(folder.length + 1);
      return rest.includes('/') ? `${rest.slice(0, rest.indexOf('/'))}/` : rest;
    };
    const rooms = new Map<string, string[]>();
    for (const [file, targets] of graph) {
      const from = roomOf(file);
      if (from === undefined) continue;
      for (const target of targets) {
        const to = roomOf(target);
        if (to === undefined || to === from) continue;
        const arrows = rooms.get(from) ?? [];
        if (!arrows.includes(to)) arrows.push(to);
        rooms.set(from, arrows);
      }
    }
    for (const loop of cycles(rooms)) found.push(`${folder}/: ${[...loop, loop[0]].join(' -> ')}`);
  }
  return found.sort();
}

describe('the import graph of product code', () => {
  const graph = importGraph();

  it('reads the imports it is about', () => {
    // A reader that found no arrow would pass every check below.
    expect(graph.get('gateway/gateway-door.ts')).toContain('gateway/gateway-door-types.ts');
    expect(graph.get('gateway/live/graphql-ws-door.ts')).toContain('gateway/gateway-door-types.ts');
    expect([...graph.values()].reduce((sum, targets) => sum + targets.length, 0)).toBeGreaterThan(1_000);
  });

  it('has no cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('has no loop between the rooms of any folder (an import that runs back up)', () => {
    expect(roomLoops(graph)).toEqual([]);
  });

  it('finds both in a graph that has them', () => {
    const broken = new Map([
      ['gateway/a.ts', ['gateway/live/b.ts']],
      ['gateway/live/b.ts', ['gateway/a.ts']],
    ]);
    expect(cycles(broken)).toEqual([['gateway/a.ts', 'gateway/live/b.ts']]);
    // The door's types as they were: live/ importing the door, which imports live/, with no file-level cycle.
    const backUp = new Map([
      ['gateway/gateway-door.ts', ['gateway/live/live-execution.ts']],
      ['gateway/live/live-execution.ts', []],
      ['gateway/live/graphql-ws-door.ts', ['gateway/gateway-door.ts']],
    ]);
    expect(cycles(backUp)).toEqual([]);
    expect(roomLoops(backUp)).toEqual(['gateway/: gateway-door.ts -> live/ -> gateway-door.ts']);
  });
});

describe('bin/', () => {
  it('holds only files that a package.json script or the build runs, plus folders', () => {
    const scripts = Object.values(
      (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
    ).join('\n');
    const build = readFileSync(join(ROOT, 'bin/build.mjs'), 'utf8');
    const files = execFileSync('git', ['ls-files', 'bin'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter((file) => /^bin\/[^/]+\.(ts|mjs)$/.test(file));
    expect(files.length).toBeGreaterThan(10);
    const run = (file: string) => {
      const name = file.slice('bin/'.length).replace(/\.(ts|mjs)$/, '');
      return scripts.includes(file) || scripts.includes(`dist/bin/${name}.js`) || build.includes(`'${name}.js'`);
    };
    expect(files.filter((file) => !run(file))).toEqual([]);
  });
});
