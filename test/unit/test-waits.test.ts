import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * How the suite waits (issue 37, item 5): for a presence with test/support/eventually.ts, bounded by the hang limit; for
 * an absence on an event, never after a pause (a pause passes on a slow machine without checking anything). Held here
 * on the text of every file under test/:
 * - no wait helper of a file's own (`eventually`, `until`, `waitFor…`, `waitUntil…`, `pollUntil…`): there is one;
 * - every timer — `setTimeout(…)`, or node:timers/promises' setTimeout under any name — is either a bound (its delay
 *   a named constant: HANG_MS, LONG_TEST_MS, SOMETHING_MS, somethingMs) or says on its line or the line above why it
 *   waits a fixed time: `// pacing: …` (the test's own pace: a body dribbled, requests spaced, a slow reader) or
 *   `// bound: …` (a deadline that ends a wait, not a wait). What is left is a pause someone would read as a check.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const HELPER = 'test/support/eventually.ts';
const PRIVATE_WAIT =
  /\b(?:function\s+(?:eventually|until|waitFor\w*|waitUntil\w*|pollUntil\w*)\s*[(<]|(?:const|let)\s+(?:eventually|until|waitFor\w*|waitUntil\w*|pollUntil\w*)\s*=\s*(?:async\b|\(|<|function\b))/;
const REASON = /\/\/\s*(?:pacing|bound):\s*\S/;

function testFiles(folder = 'test'): string[] {
  return readdirSync(join(ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'fixtures' ? [] : testFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The names node:timers/promises' setTimeout is imported under in a file. */
function sleepNames(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'node:timers\/promises'/g)) {
    for (const part of match[1]!.split(',')) {
      const [name, alias] = part.trim().split(/\s+as\s+/);
      if (name === 'setTimeout') names.push(alias ?? name);
    }
  }
  return names;
}

/** The timers of a file's text that wait a fixed time without saying why: `line: text`. */
export function unexplainedPauses(text: string): string[] {
  const lines = text.split('\n');
  const sleeps = sleepNames(text);
  const call = new RegExp(`(?<![.\\w])(?:setTimeout${sleeps.map((name) => `|${name}`).join('')})\\(`, 'g');
  const found: string[] = [];
  lines.forEach((line, index) => {
    if (/^\s*(?:\/\/|\*|\/\*)/.test(line) || /^\s*import\b/.test(line)) return;
    for (const match of line.matchAll(call)) {
      const args = line.slice(match.index + match[0].length);
      // The delay: the last top-level argument on this line (a call spanning lines is read from its first line).
      const delay = lastArgument(args);
      if (delay !== undefined && /^(?:[A-Z][A-Z0-9_]*_MS|HANG_MS|LONG_TEST_MS|[a-z]\w*Ms)$/.test(delay)) continue;
      if (REASON.test(line) || REASON.test(lines[index - 1] ?? '')) continue;
      found.push(`${index + 1}: ${line.trim()}`);
    }
  });
  return found;
}

/** The last argument of a call whose arguments start `text` (up to its closing parenthesis), trimmed. */
function lastArgument(text: string): string | undefined {
  let depth = 0;
  let start = 0;
  let last: string | undefined;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if ('([{'.includes(char)) depth += 1;
    else if (')]}'.includes(char)) {
      if (depth === 0) return text.slice(start, i).trim() || last;
      depth -= 1;
    } else if (char === ',' && depth === 0) {
      last = text.slice(start, i).trim();
      start = i + 1;
    }
  }
  return undefined;
}

describe('how the suite waits', () => {
  const files = testFiles().filter((file) => file !== HELPER && file !== relative(ROOT, fileURLToPath(import.meta.url)));

  it('finds the files it reads', () => {
    expect(files.length).toBeGreaterThan(150);
  });

  it('has one wait helper, test/support/eventually.ts', () => {
    const own = files.flatMap((file) =>
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .flatMap((line, index) => (PRIVATE_WAIT.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(own).toEqual([]);
  });

  it('pauses only with a reason: no fixed wait stands in for a check', () => {
    const pauses = files.flatMap((file) => unexplainedPauses(readFileSync(join(ROOT, file), 'utf8')).map((found) => `${file}:${found}`));
    expect(pauses).toEqual([]);
  });

  it('tells a pause from a bound and a paced wait', () => {
    const text = [
      "import { setTimeout as delay } from 'node:timers/promises';",
      'await delay(500);',
      'await new Promise((resolve) => setTimeout(resolve, 100));',
      'await Promise.race([done, new Promise((resolve) => setTimeout(resolve, HANG_MS))]);',
      'const timer = setTimeout(() => child.kill(), deadlineMs);',
      'await delay(20); // pacing: one byte every 20 ms, a client dribbling its body',
      '// bound: the process is killed if it has not exited by then',
      'setTimeout(() => child.kill(), 5_000);',
      'stream.setTimeout(1000, () => undefined);',
    ].join('\n');
    expect(unexplainedPauses(text)).toEqual(['2: await delay(500);', '3: await new Promise((resolve) => setTimeout(resolve, 100));']);
  });
});
