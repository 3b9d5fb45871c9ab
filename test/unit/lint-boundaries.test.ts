import { fileURLToPath } from 'node:url';
import { ESLint, Linter } from 'eslint';
import { describe, expect, it } from 'vitest';

/**
 * The walls of eslint.config.js, held against files that break them. Each case asks the project's own configuration which
 * import restrictions apply to a file at that path, then lints one import line with them (the restriction needs no type
 * information, so the fixture need not exist on disk).
 */
const root = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: root });

async function importProblems(filePath: string, specifier: string): Promise<string[]> {
  const config = (await eslint.calculateConfigForFile(filePath)) as { rules?: Record<string, Linter.RuleEntry> };
  const rule = config.rules?.['no-restricted-imports'];
  if (rule === undefined) return [];
  const messages = new Linter({ configType: 'flat' }).verify(
    `import { x } from '${specifier}';\nexport { x };\n`,
    [{ files: ['**/*.ts'], rules: { 'no-restricted-imports': rule } }],
    { filename: `${root}${filePath}` },
  );
  return messages.map((message) => `${message.ruleId}: ${message.message}`);
}

describe('import walls (eslint.config.js)', () => {
  it.each([
    [
      'a REST route importing a subgraph module',
      'rest-adapter/user-records/fixture.ts',
      '../../subgraphs/users/user-example.types.ts',
      'a transport never imports a subgraph',
    ],
    [
      'a REST route importing the social kernel',
      'rest-adapter/social-graph/fixture.ts',
      '../../subgraphs/shared/social-graph/social-errors.ts',
      'a transport never imports a subgraph',
    ],
    [
      'the gRPC transport importing a repository',
      'subgraphs/users/grpc/fixture.ts',
      '../user-example.repository.ts',
      'no repository, no validation',
    ],
    [
      'the gRPC transport running validation itself',
      'subgraphs/users/grpc/fixture.ts',
      '../user-example.validation.ts',
      'no repository, no validation',
    ],
    [
      'a subgraph importing a sibling subgraph',
      'subgraphs/comments/fixture.ts',
      '../accounts/accounts.repository.ts',
      "a subgraph never imports a sibling's files",
    ],
    [
      'a nested subgraph file importing a sibling subgraph',
      'subgraphs/accounts/account-edges/fixture.ts',
      '../../media/media.service.ts',
      "a subgraph never imports a sibling's files",
    ],
    [
      'the gRPC transport importing a sibling subgraph',
      'subgraphs/users/grpc/fixture.ts',
      '../../media/media.service.ts',
      "a subgraph never imports a sibling's files",
    ],
    [
      'the shared subgraph code importing an area',
      'subgraphs/shared/event-log/fixture.ts',
      '../../comments/comments.service.ts',
      'subgraphs/shared/ is below every area',
    ],
    ['lib importing a subgraph', 'lib/fixture.ts', '../subgraphs/users/user-example.service.ts', 'lib/ imports nothing above it'],
    ['lib importing a contract', 'lib/fixture.ts', '../contracts/user-records.ts', 'lib/ imports nothing above it'],
    ['a contract importing a subgraph', 'contracts/fixture.ts', '../subgraphs/media/media-errors.ts', 'contracts/ imports lib/ only'],
    [
      'a contract importing a transport',
      'contracts/fixture.ts',
      '../rest-adapter/social-graph/graph-errors.ts',
      'contracts/ imports lib/ only',
    ],
    [
      'a subgraph importing a transport',
      'subgraphs/media/fixture.ts',
      '../../rest-adapter/media-upload/media-error-mapper.ts',
      'transports call it',
    ],
    [
      'the gateway importing a subgraph internal',
      'gateway/fixture.ts',
      '../subgraphs/users/user-example.service.ts',
      'only through subgraphs/subgraph.ts',
    ],
    ['a REST route reaching past the gateway’s door', 'rest-adapter/fixture.ts', '../gateway/gateway-context.ts', 'only through its door'],
    [
      'a REST route holding the fast lane',
      'rest-adapter/user-records/fixture.ts',
      '../../gateway/stand-ins/operation-fast-lane.ts',
      'only through its door',
    ],
    [
      'a REST stand-in reaching past the door',
      'rest-adapter/stand-ins/fixture.ts',
      '../../gateway/create-gateway.ts',
      'only through its door',
    ],
    ['the gateway proper importing federation-internals', 'gateway/fixture.ts', '@apollo/federation-internals', "only the stand-ins' wing"],
    [
      'the gateway proper importing a dist/ file',
      'gateway/fixture.ts',
      '@apollo/gateway/dist/resultShaping.js',
      "only the stand-ins' wing",
    ],
    [
      'a subgraph importing a dist/ file',
      'subgraphs/users/fixture.ts',
      '@apollo/subgraph/dist/schema-helper/resolverMap.js',
      "only the stand-ins' wing",
    ],
    ['lib importing federation-internals', 'lib/stand-ins/fixture.ts', '@apollo/federation-internals', "only the stand-ins' wing"],
    ['an entrypoint importing a dist/ file', 'bin/fixture.ts', '@apollo/server/dist/esm/index.js', "only the stand-ins' wing"],
  ])('refuses %s', async (_label, filePath, specifier, reason) => {
    const problems = await importProblems(filePath, specifier);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('no-restricted-imports');
    expect(problems[0]).toContain(reason);
  });

  it.each([
    ['a REST route importing a contract', 'rest-adapter/social-graph/fixture.ts', '../../contracts/social-graph.ts'],
    ['a REST route importing lib', 'rest-adapter/fixture.ts', '../lib/errors.ts'],
    ['a REST route running operations through the gateway’s door', 'rest-adapter/fixture.ts', '../gateway/gateway-door.ts'],
    ['a gateway stand-in importing federation-internals', 'gateway/stand-ins/fixture.ts', '@apollo/federation-internals'],
    ['a gateway stand-in importing a dist/ file', 'gateway/stand-ins/fixture.ts', '@apollo/gateway/dist/resultShaping.js'],
    ['the gRPC transport calling the service', 'subgraphs/users/grpc/fixture.ts', '../user-example.service.ts'],
    ['a subgraph importing a contract', 'subgraphs/users/fixture.ts', '../../contracts/user-records.ts'],
    ['a contract importing lib', 'contracts/fixture.ts', '../lib/social-auth/social-token.service.ts'],
    ['a subgraph importing the shared kernel', 'subgraphs/comments/fixture.ts', '../shared/social-graph/social-errors.ts'],
    ['a subgraph importing its own nested files', 'subgraphs/accounts/fixture.ts', './account-edges/container-validation.ts'],
    [
      'a subgraph importing the shared media store',
      'subgraphs/accounts/account-edges/fixture.ts',
      '../../shared/media-store/blob-store.ts',
    ],
    ['the gateway importing the subgraph interface', 'gateway/fixture.ts', '../subgraphs/subgraph.ts'],
  ])('allows %s', async (_label, filePath, specifier) => {
    expect(await importProblems(filePath, specifier)).toEqual([]);
  });

  it.each([
    ['gateway/fixture.ts', "require('@apollo/gateway/dist/resultShaping.js');", 1],
    ['lib/fixture.ts', "void import('@apollo/federation-internals');", 1],
    ['rest-adapter/fixture.ts', "require('express/dist/x.js');", 1],
    ['gateway/stand-ins/fixture.ts', "require('@apollo/gateway/dist/resultShaping.js');", 0],
    ['rest-adapter/stand-ins/fixture.ts', "require('router/dist/x.js');", 0],
    ['gateway/fixture.ts', "require('undici');", 0],
  ])('in %s, %s is refused %i time(s): library internals load only in the stand-ins’ wing', async (filePath, code, count) => {
    const problems = await syntaxProblems(filePath, `${code}\n`);
    expect(problems).toHaveLength(count);
    for (const problem of problems) expect(problem).toContain("only the stand-ins' wing");
  });
});

/** What the `no-restricted-syntax` rule of the file at this path says of `code`. */
async function syntaxProblems(filePath: string, code: string): Promise<string[]> {
  const config = (await eslint.calculateConfigForFile(filePath)) as { rules?: Record<string, Linter.RuleEntry> };
  const rule = config.rules?.['no-restricted-syntax'];
  if (rule === undefined) return [];
  const messages = new Linter({ configType: 'flat' }).verify(
    code,
    [{ files: ['**/*.js'], languageOptions: { sourceType: 'module' }, rules: { 'no-restricted-syntax': rule } }],
    {
      filename: `${root}${filePath.replace(/\.ts$/, '.js')}`,
    },
  );
  return messages.map((message) => message.message);
}
