// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * Lint: a few rules as errors, chosen because each keeps a promise of the project, plus the walls between its layers.
 *
 * - typescript-eslint's recommended rules, and three type-aware ones that keep "no request may kill the process": a
 *   promise nobody awaits or catches (no-floating-promises), a promise where a callback's result is ignored
 *   (no-misused-promises), an await of something that is no promise (await-thenable).
 * - The layering (README "Project layout"), as import restrictions per folder. A rule names what a folder may NOT
 *   import; test/unit/lint-boundaries.test.ts holds each wall against a file that breaks it.
 */

/** A `no-restricted-imports` rule forbidding imports whose path matches any of `groups`, with the reason. */
function forbid(groups, message) {
  return ['error', { patterns: [{ group: groups, message }] }];
}

export default tseslint.config(
  {
    ignores: ['node_modules/**', 'data/**', 'coverage/**', '.scratch/**', 'subgraphs/*/generated/**', 'test/fixtures/**', 'dist/**', 'bench/peer-gateway/.build/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests and the bench read replies they have not typed.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // These files are JavaScript outside the TypeScript project: the rules that need types do not apply to them.
    files: ['eslint.config.js', 'bin/build.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The build script runs on Node before anything is compiled.
    files: ['bin/build.mjs'],
    languageOptions: { globals: { URL: 'readonly', performance: 'readonly', console: 'readonly', process: 'readonly' } },
  },
  // ---- the walls between the layers ----
  {
    // lib/ is the ground floor: shared infrastructure that knows nothing of what is built on it.
    files: ['lib/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/contracts/**', '**/subgraphs/**', '**/gateway/**', '**/rest-adapter/**', '**/bin/**', '**/schema/**', '**/bench/**', '**/test/**'],
        'lib/ imports nothing above it: move the shared piece into lib/, or the dependency up.',
      ),
    },
  },
  {
    // contracts/ is the wire vocabulary a service and its transports share: it stands on lib/ and on nothing else.
    files: ['contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/subgraphs/**', '**/gateway/**', '**/rest-adapter/**', '**/bin/**', '**/schema/**', '**/bench/**', '**/test/**'],
        'contracts/ imports lib/ only: a contract is shared by a service and its transports, so it can depend on neither.',
      ),
    },
  },
  {
    // The REST adapter is a transport: it runs GraphQL operations through the gateway (in process or over HTTP) and
    // shares only contracts/ with the services.
    files: ['rest-adapter/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/subgraphs/**', '**/bin/**', '**/bench/**', '**/test/**'],
        'a transport never imports a subgraph: what it shares with a service (reasons, enums, messages) lives in contracts/.',
      ),
    },
  },
  {
    // Subgraphs hold the services; no transport, gateway or entrypoint reaches into them from below.
    files: ['subgraphs/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/gateway/**', '**/rest-adapter/**', '**/bin/**', '**/bench/**', '**/test/**'],
        'a subgraph imports lib/, contracts/ and its kernel only; transports call it, never the other way round.',
      ),
    },
  },
  {
    // The gateway hosts subgraphs in-process through their one public interface, and knows no transport above it.
    files: ['gateway/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/subgraphs/**', '!**/subgraphs/subgraph.ts', '**/rest-adapter/**', '**/bin/**', '**/bench/**', '**/test/**'],
        'the gateway sees subgraphs only through subgraphs/subgraph.ts.',
      ),
    },
  },
  {
    // A subgraph's gRPC server is a transport beside GraphQL: it decodes, calls the service, encodes. It reaches no
    // repository and runs no validation of its own (ESLint applies the last matching block's rule: the subgraph wall
    // is repeated here).
    files: ['subgraphs/*/grpc/**/*.ts'],
    rules: {
      'no-restricted-imports': forbid(
        ['**/gateway/**', '**/rest-adapter/**', '**/bin/**', '**/bench/**', '**/test/**', '**/*.repository.ts', '**/*.validation.ts'],
        'a transport calls the service: no repository, no validation of its own.',
      ),
    },
  },
);
