import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { outputMatches, readmeBlocks, readmeFailures, readmeRuns, readmeScript } from '../support/readme-runner.ts';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

describe('the README runner', () => {
  it('reads commands, their continuation lines and the output shown after them; prose ends a command', () => {
    const [block] = readmeBlocks(
      [
        'text',
        '```sh',
        'TOKEN=$(npm run -s token)',
        'curl -s -X POST localhost:8080/x \\',
        "  -d '{}'     # a comment",
        '#> {"id":"1"}',
        '#> second line',
        '# prose',
        'echo done',
        '```',
      ].join('\n'),
    );
    expect(block).toEqual({
      line: 2,
      commands: [
        { line: 3, text: 'TOKEN=$(npm run -s token)', expected: [] },
        { line: 4, text: "curl -s -X POST localhost:8080/x \\\n  -d '{}'     # a comment", expected: ['{"id":"1"}', 'second line'] },
        { line: 9, text: 'echo done', expected: [] },
      ],
    });
  });

  it('keeps a block skipped with its reason, reads indented blocks, and leaves other languages alone', () => {
    const blocks = readmeBlocks(
      [
        '<!-- readme-test: skip — needs a fleet -->',
        '```sh',
        'npm start',
        '```',
        '- item',
        '',
        '  ```sh',
        '  echo hi',
        '  #> hi',
        '  ```',
        '```graphql',
        '{ a }',
        '```',
      ].join('\n'),
    );
    expect(blocks).toEqual([
      { line: 2, skip: 'needs a fleet', commands: [{ line: 3, text: 'npm start', expected: [] }] },
      { line: 7, commands: [{ line: 8, text: 'echo hi', expected: ['hi'] }] },
    ]);
  });

  it('refuses output shown after prose, where no command printed it', () => {
    expect(() => readmeBlocks(['```sh', 'echo a', '# why', '#> a', '```'].join('\n'))).toThrow(
      'README.md:4: output shown before any command',
    );
  });

  it('matches output with … for any text and whitespace ignored', () => {
    expect(outputMatches(['{"id":"…","name":"Alice"}'], '{\n  "id": "17",\n  "name": "Alice"\n}')).toBe(true);
    expect(outputMatches(['{"id":"…","name":"Alice"}'], '{"id":"17","name":"Bob"}')).toBe(false);
    expect(outputMatches(['{"a":1}'], '{"a":1}{"b":2}')).toBe(false);
    expect(outputMatches(['eyJ…'], 'eyJhbGciOiJIUzI1NiJ9.e30.x')).toBe(true);
    expect(outputMatches(['a.b(c)'], 'aXb(c)')).toBe(false);
  });

  it('runs commands between markers and reports each that exits non-zero, prints what README does not show, or never ends', () => {
    const commands = [
      { line: 1, text: 'echo \'{"id": "1"}\'', expected: ['{"id":"1"}'] },
      { line: 2, text: 'echo unexpected', expected: [] },
      { line: 3, text: 'false', expected: [] },
      { line: 4, text: 'echo two', expected: ['three'] },
      { line: 5, text: 'sleep 100', expected: [] },
      { line: 6, text: 'echo never', expected: ['never'] },
    ];
    const script = readmeScript(commands);
    expect(script).toContain("printf '\\n@@readme-begin %d\\n' 0\necho '{\"id\": \"1\"}'\nprintf '\\n@@readme-end %d %d\\n' 0 $?");
    // What bash prints for the script, cut while the fifth command runs.
    const transcript = [
      '',
      '@@readme-begin 0',
      '{"id": "1"}',
      '',
      '@@readme-end 0 0',
      '',
      '@@readme-begin 1',
      'unexpected',
      '',
      '@@readme-end 1 0',
      '',
      '@@readme-begin 2',
      '',
      '@@readme-end 2 1',
      '',
      '@@readme-begin 3',
      'two',
      '',
      '@@readme-end 3 0',
      '',
      '@@readme-begin 4',
      'partial',
    ].join('\n');
    expect(readmeFailures(commands, readmeRuns(transcript))).toEqual([
      'README.md:2 echo unexpected\n  printed:\n    unexpected\n  README shows:\n    (nothing)',
      'README.md:3 false\n  exited 1; printed:\n    ',
      'README.md:4 echo two\n  printed:\n    two\n  README shows:\n    three',
      'README.md:5 sleep 100\n  did not finish; printed:\n    partial',
      'README.md:6 echo never\n  never ran (an earlier command ended the script)',
    ]);
  });
});

describe('README.md', () => {
  const blocks = readmeBlocks(README);

  it('runs most of its shell blocks, and says why of each it does not', () => {
    const skipped = blocks.filter((block) => block.skip !== undefined);
    expect(skipped.map((block) => block.skip)).not.toContain('no reason given');
    expect(blocks.length - skipped.length).toBeGreaterThanOrEqual(10);
  });

  it('shows what every curl of a run block prints', () => {
    const silent = blocks
      .filter((block) => block.skip === undefined)
      .flatMap((block) => block.commands)
      .filter(
        (command) => /^curl\b/.test(command.text) && !/>\s*\S+\s*$|-o\s|\|\s*tee\b/.test(command.text) && command.expected.length === 0,
      );
    expect(silent.map((command) => `README.md:${command.line}`)).toEqual([]);
  });
});
