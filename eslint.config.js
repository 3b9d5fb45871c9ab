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

/** One wall: imports whose path matches any of `groups` are refused, with the reason. */
function wall(groups, message) {
  return { group: groups, message };
}

/** A `no-restricted-imports` rule made of walls. */
function forbidWalls(...walls) {
  return ['error', { patterns: walls }];
}

/**
 * Library internals — another package's dist/ files, and @apollo/federation-internals (no public API) — are loaded only
 * by the stand-ins' wing (gateway/stand-ins/, rest-adapter/stand-ins/), each behind its gate (lib/stand-ins/).
 */
const LIBRARY_INTERNALS = wall(
  ['@apollo/federation-internals', '@apollo/federation-internals/**', '**/dist/**'],
  "only the stand-ins' wing (gateway/stand-ins/, rest-adapter/stand-ins/) loads library internals, behind a gate (lib/stand-ins/).",
);

/** The same wall for a require() or import() whose path is written out. */
const LIBRARY_INTERNALS_LOADED = [
  'error',
  {
    selector: "CallExpression[callee.name='require'] > Literal[value=/(^@apollo\\/federation-internals|\\/dist\\/)/]",
    message: LIBRARY_INTERNALS.message,
  },
  {
    selector: 'ImportExpression > Literal[value=/(^@apollo\\/federation-internals|\\/dist\\/)/]',
    message: LIBRARY_INTERNALS.message,
  },
];

const LIB_WALL = wall(
  ['**/contracts/**', '**/subgraphs/**', '**/gateway/**', '**/rest-adapter/**', '**/bin/**', '**/schema/**', '**/bench/**', '**/test/**'],
  'lib/ imports nothing above it: move the shared piece into lib/, or the dependency up.',
);
const REST_ADAPTER_WALL = wall(
  ['**/subgraphs/**', '**/bin/**', '**/bench/**', '**/test/**'],
  'a transport never imports a subgraph: what it shares with a service (reasons, enums, messages) lives in contracts/.',
);
const REST_ADAPTER_DOOR = wall(
  ['**/gateway/**', '!**/gateway/gateway-door.ts'],
  "the REST adapter reaches the gateway only through its door (gateway/gateway-door.ts): no lane, no Apollo Server, no stand-in of the gateway's.",
);
const GATEWAY_WALL = wall(
  ['**/subgraphs/**', '!**/subgraphs/subgraph.ts', '**/rest-adapter/**', '**/bin/**', '**/bench/**', '**/test/**'],
  'the gateway sees subgraphs only through subgraphs/subgraph.ts.',
);

const SUBGRAPH_WALL = wall(
  ['**/gateway/**', '**/rest-adapter/**', '**/bin/**', '**/bench/**', '**/test/**'],
  'a subgraph imports lib/, contracts/ and subgraphs/shared/ only; transports call it, never the other way round.',
);
/** The areas' subgraph folders (subgraphs/README.md). */
const SUBGRAPH_AREAS = ['users', 'comments', 'accounts', 'media'];
/** An area's subgraph reaching into a sibling's folder. */
function siblingWall(area) {
  return wall(
    SUBGRAPH_AREAS.filter((other) => other !== area).map((other) => `**/${other}/**`),
    `a subgraph never imports a sibling's files: what ${area} shares with another area lives in subgraphs/shared/.`,
  );
}
const SHARED_WALL = wall(
  SUBGRAPH_AREAS.map((area) => `**/${area}/**`),
  "subgraphs/shared/ is below every area's subgraph: it imports none of them.",
);

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'data/**',
      'coverage/**',
      '.scratch/**',
      'subgraphs/*/generated/**',
      'rest-adapter/*/generated/**',
      'test/fixtures/**',
      'dist/**',
      'bench/peer-gateway/.build/**',
    ],
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
      'no-restricted-imports': forbidWalls(LIB_WALL, LIBRARY_INTERNALS),
      'no-restricted-syntax': LIBRARY_INTERNALS_LOADED,
    },
  },
  {
    // contracts/ is the wire vocabulary a service and its transports share: it stands on lib/ and on nothing else.
    files: ['contracts/**/*.ts'],
    rules: {
      'no-restricted-imports': forbidWalls(
        wall(
          ['**/subgraphs/**', '**/gateway/**', '**/rest-adapter/**', '**/bin/**', '**/schema/**', '**/bench/**', '**/test/**'],
          'contracts/ imports lib/ only: a contract is shared by a service and its transports, so it can depend on neither.',
        ),
        LIBRARY_INTERNALS,
      ),
      'no-restricted-syntax': LIBRARY_INTERNALS_LOADED,
    },
  },
  {
    // The REST adapter is a transport: it runs GraphQL operations through the gateway's door (in process or over HTTP)
    // and shares only contracts/ with the services.
    files: ['rest-adapter/**/*.ts'],
    rules: {
      'no-restricted-imports': forbidWalls(REST_ADAPTER_WALL, REST_ADAPTER_DOOR, LIBRARY_INTERNALS),
      'no-restricted-syntax': LIBRARY_INTERNALS_LOADED,
    },
  },
  {
    // The REST adapter's stand-ins: the same walls but the one on library internals.
    files: ['rest-adapter/stand-ins/**/*.ts'],
    rules: {
      'no-restricted-imports': forbidWalls(REST_ADAPTER_WALL, REST_ADAPTER_DOOR),
      'no-restricted-syntax': 'off',
    },
  },
  {
    // Subgraphs hold the services; no transport, gateway or entrypoint reaches into them from below.
    files: ['subgraphs/**/*.ts'],
    rules: {
      'no-restricted-imports': forbidWalls(SUBGRAPH_WALL, LIBRARY_INTERNALS),
      'no-restricted-syntax': LIBRARY_INTERNALS_LOADED,
    },
  },
  // Each area's subgraph is on its own: what two of them share lives in subgraphs/shared/, which none of them owns
  // (ESLint applies the last matching block's rule: the subgraph wall is repeated in each).
  ...SUBGRAPH_AREAS.map((area) => ({
    files: [`subgraphs/${area}/**/*.ts`],
    rules: { 'no-restricted-imports': forbidWalls(SUBGRAPH_WALL, siblingWall(area), LIBRARY_INTERNALS) },
  })),
  {
    files: ['subgraphs/shared/**/*.ts'],
    rules: { 'no-restricted-imports': forbidWalls(SUBGRAPH_WALL, SHARED_WALL, LIBRARY_INTERNALS) },
  },
  {
    // The gateway hosts subgraphs in-process through their one public interface, and knows no transport above it.
    files: ['gateway/**/*.ts'],
    rules: {
      'no-restricted-imports': forbidWalls(GATEWAY_WALL, LIBRARY_INTERNALS),
      'no-restricted-syntax': LIBRARY_INTERNALS_LOADED,
    },
  },
  {
    // The stand-ins' wing: code that stands in for a library's own (lib/stand-ins/stand-in-registry.ts) may load that
    // library's internals, each behind its gate.
    files: ['gateway/stand-ins/**/*.ts'],
    rules: {
      'no-restricted-imports': forbidWalls(GATEWAY_WALL),
      'no-restricted-syntax': 'off',
    },
  },
  {
    // The subscription planner: @apollo/query-planner's public constructor and buildQueryPlan take
    // @apollo/federation-internals' Supergraph and Operation, so this file loads that package (no dist/ file).
    files: ['gateway/live/subscription-planner.ts'],
    rules: {
      'no-restricted-imports': forbidWalls(GATEWAY_WALL, wall(['**/dist/**'], LIBRARY_INTERNALS.message)),
      'no-restricted-syntax': 'off',
    },
  },
  {
    // Entrypoints, the supergraph's tooling and the root's configuration files (codegen.ts): the library-internals wall only.
    files: ['bin/**/*.ts', 'schema/**/*.ts', '*.ts'],
    rules: {
      'no-restricted-imports': forbidWalls(LIBRARY_INTERNALS),
      'no-restricted-syntax': LIBRARY_INTERNALS_LOADED,
    },
  },
  {
    // A subgraph's gRPC server is a transport beside GraphQL: it decodes, calls the service, encodes. It reaches no
    // repository and runs no validation of its own (ESLint applies the last matching block's rule: the subgraph wall
    // is repeated here).
    files: ['subgraphs/*/grpc/**/*.ts'],
    rules: {
      'no-restricted-imports': forbidWalls(
        wall(
          ['**/gateway/**', '**/rest-adapter/**', '**/bin/**', '**/bench/**', '**/test/**', '**/*.repository.ts', '**/*.validation.ts'],
          'a transport calls the service: no repository, no validation of its own.',
        ),
        siblingWall('users'),
        LIBRARY_INTERNALS,
      ),
    },
  },
);
