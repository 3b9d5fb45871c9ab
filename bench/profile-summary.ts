/**
 * Summarises a V8 .cpuprofile (from `npm run bench -- --profile`, `node --cpu-prof` or DevTools): self time per function
 * and per package. Run alone: `npx tsx bench/profile-summary.ts <file.cpuprofile> [--top 20]`.
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface SelfTime {
  name: string;
  selfMs: number;
  /** Share of the busy (non-idle) time. */
  percent: number;
}

export interface ProfileSummary {
  wallMs: number;
  busyMs: number;
  idleMs: number;
  functions: SelfTime[];
  packages: SelfTime[];
}

const SPECIAL = new Set(['(idle)', '(program)', '(garbage collector)', '(root)']);

/** Where a script comes from: an npm package, Node's own code, this repository, or V8/native. */
export function packageOf(url: string, functionName: string): string {
  if (SPECIAL.has(functionName)) return functionName;
  if (!url) return '(native / V8 builtins)';
  if (url.startsWith('node:')) return 'node (core)';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1]!;
  const repo = /\/(lib|gateway|subgraphs|rest-adapter|bin|bench|schema)\//.exec(url);
  if (repo) return `tributary ${repo[1]}/`;
  return url;
}

function shortLocation(url: string): string {
  if (!url) return '';
  const inPackage = /node_modules\/(.*)$/.exec(url);
  if (inPackage) return inPackage[1]!;
  const repo = /\/((?:lib|gateway|subgraphs|rest-adapter|bin|bench|schema)\/.*)$/.exec(url);
  if (repo) return repo[1]!;
  return url.replace(/^file:\/\//, '');
}

/** Self time per function and per package, largest first. */
export function summariseProfile(profile: CpuProfile, top = 20): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMicros = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i += 1) {
    // timeDeltas[i + 1] is the time until the next sample, i.e. how long sample i was running.
    const delta = deltas[i + 1] ?? deltas[i] ?? 0;
    selfMicros.set(samples[i]!, (selfMicros.get(samples[i]!) ?? 0) + delta);
  }
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  let idle = 0;
  let total = 0;
  for (const [id, micros] of selfMicros) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    total += micros;
    if (functionName === '(idle)') {
      idle += micros;
      continue;
    }
    const name = SPECIAL.has(functionName)
      ? functionName
      : `${functionName || '(anonymous)'}  ${shortLocation(url)}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
    const pkg = packageOf(url, functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + micros);
  }
  const busy = total - idle;
  const rank = (map: Map<string, number>): SelfTime[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, micros]) => ({
        name,
        selfMs: Math.round(micros / 100) / 10,
        percent: busy > 0 ? Math.round((micros / busy) * 1000) / 10 : 0,
      }));
  return {
    wallMs: Math.round((profile.endTime - profile.startTime) / 1000),
    busyMs: Math.round(busy / 1000),
    idleMs: Math.round(idle / 1000),
    functions: rank(functions),
    packages: rank(packages),
  };
}

/** Plain-text rendering of a summary. */
export function formatSummary(summary: ProfileSummary): string {
  const lines = [
    `  wall ${summary.wallMs} ms, busy ${summary.busyMs} ms, idle ${summary.idleMs} ms (percentages are of busy time)`,
    '  self time by package:',
    ...summary.packages.map((entry) => `    ${entry.percent.toFixed(1).padStart(5)}%  ${entry.name}`),
    '  top functions by self time:',
    ...summary.functions.map((entry) => `    ${entry.percent.toFixed(1).padStart(5)}%  ${entry.name}`),
  ];
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [file, ...rest] = process.argv.slice(2);
  if (!file) {
    console.error('usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [--top N]');
    process.exit(2);
  }
  const topIndex = rest.indexOf('--top');
  const top = topIndex >= 0 ? Number(rest[topIndex + 1]) : 20;
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log(formatSummary(summariseProfile(profile, top)));
}
