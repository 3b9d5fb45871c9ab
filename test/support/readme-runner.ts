/**
 * README.md's shell examples as a script, and their printed output judged against what README shows (test/e2e/system/readme.test.ts).
 *
 * The README's conventions, which this module reads and `readme-runner.test.ts` holds it to:
 * - Every ```sh block is run, in the order of the file, in one shell (a variable set in one block is there in the
 *   next), unless the line before its fence is `<!-- readme-test: skip — why -->`.
 * - A command is a line that is not a `#` comment, with the lines its trailing `\` continues.
 * - `#> ` lines right after a command are what it prints (stdout and stderr together), one line each; `…` stands for
 *   any text, and whitespace is not compared (JSON pretty-printed or not, as buf curl and jq print it). A command with
 *   no `#>` line must print nothing. Every command must exit 0.
 * - Other `#` lines are prose for the reader.
 */

export interface ReadmeCommand {
  /** 1-based line of the command's first line in README.md. */
  line: number;
  text: string;
  /** The `#>` lines that follow it, without the marker. */
  expected: string[];
}

export interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  /** Why the block is not run, when it is not. */
  skip?: string;
  commands: ReadmeCommand[];
}

const FENCE = /^(\s*)```(\S*)\s*$/;
const SKIP = /^\s*<!--\s*readme-test:\s*skip\s*(?:[—–-]\s*)?(.*?)\s*-->\s*$/;

/** The ```sh blocks of a Markdown file, each with its commands and their expected output. */
export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    const open = FENCE.exec(lines[index]!);
    if (!open) continue;
    const body: { line: number; text: string }[] = [];
    let end = index + 1;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end]!)) {
      body.push({ line: end + 1, text: lines[end]!.slice(Math.min(open[1]!.length, lines[end]!.length - lines[end]!.trimStart().length)) });
      end += 1;
    }
    if (open[2] === 'sh') {
      const skip = index > 0 ? SKIP.exec(lines[index - 1]!)?.[1] : undefined;
      blocks.push({ line: index + 1, ...(skip !== undefined && { skip: skip || 'no reason given' }), commands: commandsOf(body) });
    }
    index = end;
  }
  return blocks;
}

function commandsOf(body: { line: number; text: string }[]): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  let current: ReadmeCommand | undefined;
  let continuing = false;
  for (const { line, text } of body) {
    const trimmed = text.trim();
    if (continuing && current) {
      current.text += `\n${text}`;
      continuing = trimmed.endsWith('\\');
      continue;
    }
    if (trimmed.startsWith('#>')) {
      if (!current) throw new Error(`README.md:${line}: output shown before any command`);
      current.expected.push(trimmed.slice(2).trimStart());
      continue;
    }
    if (trimmed === '' || trimmed.startsWith('#')) {
      // Prose or a blank line ends what a command prints: `#>` after it belongs to no command.
      current = undefined;
      continue;
    }
    current = { line, text: trimmed, expected: [] };
    commands.push(current);
    continuing = trimmed.endsWith('\\');
  }
  return commands;
}

const BEGIN = '@@readme-begin ';
const END = '@@readme-end ';

/**
 * One bash script running `commands` in order, each between markers that carry its index and exit status; `rewrite`
 * adapts a command to the system under test (its ports).
 */
export function readmeScript(commands: readonly ReadmeCommand[], rewrite: (text: string) => string = (text) => text): string {
  const parts = ['set +e'];
  commands.forEach((command, index) => {
    parts.push(`printf '\\n${BEGIN}%d\\n' ${index}`, rewrite(command.text), `printf '\\n${END}%d %d\\n' ${index} $?`);
  });
  return `${parts.join('\n')}\n`;
}

export interface CommandRun {
  output: string;
  /** Undefined when the script ended before the command did (it hung, or the shell exited). */
  exitCode?: number;
}

/** What each command of a {@link readmeScript} printed and how it exited, by index. */
export function readmeRuns(transcript: string): Map<number, CommandRun> {
  const runs = new Map<number, CommandRun>();
  let index: number | undefined;
  let output: string[] = [];
  for (const line of transcript.split('\n')) {
    if (line.startsWith(BEGIN)) {
      index = Number(line.slice(BEGIN.length));
      output = [];
      runs.set(index, { output: '' });
    } else if (line.startsWith(END)) {
      const [done, code] = line.slice(END.length).split(' ').map(Number);
      if (done === index) runs.set(done!, { output: trimBlankEdges(output).join('\n'), exitCode: code! });
      index = undefined;
    } else if (index !== undefined) {
      output.push(line);
      runs.set(index, { output: trimBlankEdges(output).join('\n') });
    }
  }
  return runs;
}

function trimBlankEdges(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === '') start += 1;
  while (end > start && lines[end - 1]!.trim() === '') end -= 1;
  return lines.slice(start, end);
}

/** Whether `actual` is what `expected` shows: `…` for any text, whitespace ignored. */
export function outputMatches(expected: readonly string[], actual: string): boolean {
  const pattern = expected
    .join('')
    .replace(/\s+/g, '')
    .split('…')
    .map((piece) => piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[\\s\\S]*?');
  return new RegExp(`^${pattern}$`).test(actual.replace(/\s+/g, ''));
}

/** Each command that did not do what README shows, as `README.md:<line>` and why. */
export function readmeFailures(commands: readonly ReadmeCommand[], runs: ReadonlyMap<number, CommandRun>): string[] {
  const failures: string[] = [];
  commands.forEach((command, index) => {
    const run = runs.get(index);
    const where = `README.md:${command.line} ${command.text.split('\n')[0]}`;
    if (!run) failures.push(`${where}\n  never ran (an earlier command ended the script)`);
    else if (run.exitCode === undefined) failures.push(`${where}\n  did not finish; printed:\n${indent(run.output)}`);
    else if (run.exitCode !== 0) failures.push(`${where}\n  exited ${run.exitCode}; printed:\n${indent(run.output)}`);
    else if (command.expected.length === 0 ? run.output.trim() !== '' : !outputMatches(command.expected, run.output)) {
      failures.push(`${where}\n  printed:\n${indent(run.output)}\n  README shows:\n${indent(command.expected.join('\n') || '(nothing)')}`);
    }
  });
  return failures;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
