import { readFileSync } from 'node:fs';

/**
 * The Node flags an npm script gives its process (`node <flags> dist/bin/….js`), so that a process the bench starts
 * runs as `npm run <name>` would run it — with the young generation size it ships with, for one.
 */
export function scriptNodeFlags(name: string): string[] {
  const { scripts } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
  const words = (scripts[name] ?? '').trim().split(/\s+/);
  if (words[0] !== 'node') throw new Error(`package.json script ${name} does not start with node: ${scripts[name]}`);
  return words.slice(1).filter((word) => word.startsWith('--'));
}
