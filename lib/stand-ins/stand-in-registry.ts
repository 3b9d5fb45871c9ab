/**
 * Every piece of code that stands in for a library's own (a routing shortcut, a body reader, a pipeline bypass, a patched
 * export, another engine or client) — conventions §14. Each entry says what it replaces, the releases it was checked
 * against, the files of those packages it loads, the test that holds it to the library, and the switch that turns it off.
 *
 * The gate (stand-in-gate.ts) reads this table before a stand-in loads anything: with its switch off, an installed release
 * other than the one checked here, or a file it loads missing, the library's own route serves and a warning says why.
 * test/unit/stand-in-registry.test.ts fails when an installed release differs, naming what to re-verify; CI runs the
 * e2e project once more with every switch off (STAND_INS=off), so the library's route stays proven.
 *
 * To upgrade a package listed here: run the comparison test of each stand-in that names it, read the library's change
 * log for the behaviour the stand-in copies, then update `checked` below.
 */

export const STAND_IN_IDS = [
  'http-fast-path',
  'lean-json-body',
  'operation-fast-lane',
  'result-shaping',
  'operation-cache',
  'jit-subgraph-execution',
  'undici-subgraph-client',
  'rest-fast-path',
] as const;

export type StandInId = (typeof STAND_IN_IDS)[number];

/** A package release a stand-in was checked against. */
export interface CheckedRelease {
  package: string;
  version: string;
  /** The package whose copy is meant, when it is another package's dependency (body-parser: express's). */
  from?: string;
}

/** A file inside an installed package that a stand-in loads or patches (outside the package's public entry points). */
export interface LoadedFile {
  package: string;
  /** Relative to the package's folder, e.g. `dist/resultShaping.js`. */
  file: string;
  /** The package whose copy is meant, when it is another package's dependency. */
  from?: string;
}

export interface StandIn {
  /** What it is, in a few words (logs, README). */
  title: string;
  /** Where it lives, relative to the repository. */
  source: string;
  /** What of the library's behaviour it replaces, and where the library's own route takes over. */
  replaces: string;
  /** The releases whose behaviour it copies or whose internals it relies on. */
  checked: readonly CheckedRelease[];
  /** Files of those packages it loads or patches; a missing one turns the stand-in off. */
  loads: readonly LoadedFile[];
  /** The test that holds it to the library (a differential or comparison test). */
  comparisonTest: string;
  /** The environment variable that turns it off (`off`); STAND_INS=off turns every one off. */
  switchVariable: string;
}

export const STAND_INS: Readonly<Record<StandInId, StandIn>> = {
  'http-fast-path': {
    title: 'the HTTP fast path (gateway and subgraph servers)',
    source: 'gateway/stand-ins/http-fast-path.ts',
    replaces:
      "Express's router and its request/response decoration, and @as-integrations/express5's handler, for POST /graphql with a JSON body, on the gateway (CORS_ORIGINS' cors handler run first, as on the route) and on each subgraph server (in front of its Apollo Server: subgraphs/subgraph-server.ts, compared in test/e2e/gateway/subgraph-fast-path.test.ts); everything else (a preflight included) is Express's",
    checked: [
      { package: 'express', version: '5.3.0' },
      { package: '@as-integrations/express5', version: '1.1.2' },
      { package: 'cors', version: '2.8.5' },
    ],
    loads: [],
    comparisonTest: 'test/e2e/gateway/gateway-fast-path.test.ts',
    switchVariable: 'STAND_IN_HTTP_FAST_PATH',
  },
  'lean-json-body': {
    title: 'the lean JSON body reader',
    source: 'gateway/stand-ins/lean-json-body.ts',
    replaces:
      "body-parser's JSON parser (express.json) on the HTTP fast path, for a Content-Length body holding a JSON object; any other body, and every failure, is body-parser's own answer",
    checked: [{ package: 'body-parser', version: '2.4.0', from: 'express' }],
    loads: [],
    comparisonTest: 'test/e2e/gateway/gateway-fast-path.test.ts',
    switchVariable: 'STAND_IN_LEAN_JSON_BODY',
  },
  'operation-fast-lane': {
    title: 'the operation fast lane',
    source: 'gateway/stand-ins/operation-fast-lane.ts',
    replaces:
      "Apollo Server's request pipeline (plugin hooks, the request context handed to the gateway's executor, its cache policy, Accept negotiation, response assembly) for documents it has already run, in the gateway and in each subgraph server; errors are replayed through the pipeline",
    checked: [
      { package: '@apollo/server', version: '5.5.1' },
      { package: '@apollo/gateway', version: '2.14.4' },
      { package: 'negotiator', version: '1.1.0', from: '@apollo/server' },
    ],
    loads: [],
    comparisonTest: 'test/e2e/gateway/gateway-fast-lane.test.ts',
    switchVariable: 'STAND_IN_OPERATION_FAST_LANE',
  },
  'result-shaping': {
    title: 'the compiled result shaping',
    source: 'gateway/stand-ins/result-shaping.ts',
    replaces: "@apollo/gateway's computeResponse (dist/resultShaping.js), exported in its place",
    checked: [{ package: '@apollo/gateway', version: '2.14.4' }],
    loads: [{ package: '@apollo/gateway', file: 'dist/resultShaping.js' }],
    comparisonTest: 'test/unit/result-shaping.test.ts',
    switchVariable: 'STAND_IN_RESULT_SHAPING',
  },
  'operation-cache': {
    title: 'the operation cache',
    source: 'gateway/stand-ins/operation-cache.ts',
    replaces:
      "@apollo/federation-internals' operationFromDocument (dist/operations.js) as @apollo/gateway's executeQueryPlan calls it: memoised per schema and operation definition",
    checked: [
      { package: '@apollo/federation-internals', version: '2.14.4', from: '@apollo/gateway' },
      { package: '@apollo/gateway', version: '2.14.4' },
    ],
    loads: [{ package: '@apollo/federation-internals', file: 'dist/operations.js', from: '@apollo/gateway' }],
    comparisonTest: 'test/unit/operation-cache.test.ts',
    switchVariable: 'STAND_IN_OPERATION_CACHE',
  },
  'jit-subgraph-execution': {
    title: 'graphql-jit for subgraphs',
    source: 'gateway/stand-ins/jit-subgraph-execution.ts',
    replaces:
      "graphql-js's execute for every subgraph: in the gateway's process (embedded mode) and behind each subgraph server's Apollo Server, handed to it as a gateway's executor (subgraphs/subgraph-executor.ts: its errors shaped as graphql-js's); graphql-js's variable messages and error lists kept",
    checked: [
      { package: 'graphql', version: '16.15.0' },
      { package: 'graphql-jit', version: '0.8.9' },
      { package: '@apollo/server', version: '5.5.1' },
    ],
    loads: [],
    comparisonTest: 'test/e2e/gateway/jit-subgraph-execution.test.ts',
    switchVariable: 'STAND_IN_JIT_SUBGRAPH_EXECUTION',
  },
  'undici-subgraph-client': {
    title: "undici's pool for subgraph requests",
    source: 'gateway/stand-ins/undici-subgraph-client.ts',
    replaces:
      "RemoteGraphQLDataSource's default fetcher (make-fetch-happen) for the distributed gateway's POSTs to subgraphs, with its failure words kept",
    checked: [
      { package: '@apollo/gateway', version: '2.14.4' },
      { package: 'make-fetch-happen', version: '15.0.6', from: '@apollo/gateway' },
      { package: 'undici', version: '7.30.2' },
    ],
    loads: [],
    comparisonTest: 'test/e2e/gateway/gateway-subgraph-client.test.ts',
    switchVariable: 'STAND_IN_UNDICI_SUBGRAPH_CLIENT',
  },
  'rest-fast-path': {
    title: 'the REST fast path',
    source: 'rest-adapter/stand-ins/rest-fast-path.ts',
    replaces: "Express's router and its request/response decoration for Area A's GET and DELETE of one record by a plain id",
    checked: [
      { package: 'express', version: '5.3.0' },
      { package: 'router', version: '2.3.0', from: 'express' },
    ],
    loads: [],
    comparisonTest: 'test/e2e/gateway/rest-fast-path.test.ts',
    switchVariable: 'STAND_IN_REST_FAST_PATH',
  },
};

/**
 * Code that copies a library's behaviour where the library offers no route of its own to fall back to, so it has no
 * switch and no gate: @apollo/gateway has no data source that forwards uploads or spreads fetches over instances, keeps
 * its query planner to itself, and refuses to execute a Subscription or a Defer node; Apollo Server collects cache hints
 * only from resolvers it runs itself. Each entry is held like a
 * stand-in — the releases it copies, a comparison test against the library — and test/unit/stand-in-registry.test.ts
 * fails when an installed release differs, naming what to re-verify.
 */
export interface LibraryCopy {
  title: string;
  source: string;
  /** What of the library's behaviour it copies, and where it deliberately differs. */
  copies: string;
  checked: readonly CheckedRelease[];
  comparisonTest: string;
}

export const LIBRARY_COPY_IDS = ['remote-data-source', 'subscription-planner', 'defer-execution', 'static-cache-policy'] as const;

export type LibraryCopyId = (typeof LIBRARY_COPY_IDS)[number];

export const LIBRARY_COPIES: Readonly<Record<LibraryCopyId, LibraryCopy>> = {
  'remote-data-source': {
    title: 'the subgraph fetch, as RemoteGraphQLDataSource builds it',
    source: 'gateway/remote-data-source.ts',
    copies:
      "RemoteGraphQLDataSource's request (one POST of {query, variables, operationName, extensions}, the gateway's own headers under the caller's) and its reading of the reply (JSON or text by content type, a non-2xx as `<status>: <text>` with UNAUTHENTICATED/FORBIDDEN, Cache-Control folded into the cache policy); it differs on purpose in passing a 400's GraphQL errors on, in uploads, instances and retries",
    checked: [{ package: '@apollo/gateway', version: '2.14.4' }],
    comparisonTest: 'test/unit/remote-data-source.comparison.test.ts',
  },
  'subscription-planner': {
    title: "a query planner of the live paths' own, built as @apollo/gateway builds its",
    source: 'gateway/live/subscription-planner.ts',
    copies:
      "@apollo/gateway's construction of its planner (`new QueryPlanner(Supergraph.build(sdl))`) and of operations (`operationFromDocument` over the API schema), for subscriptions and, with incremental delivery on, @defer",
    checked: [
      { package: '@apollo/gateway', version: '2.14.4' },
      { package: '@apollo/query-planner', version: '2.14.4' },
      { package: '@apollo/federation-internals', version: '2.14.4' },
    ],
    comparisonTest: 'test/unit/subscription-planner.comparison.test.ts',
  },
  'defer-execution': {
    title: "the planner's Defer node executed block by block",
    source: 'gateway/live/defer-execution.ts',
    copies:
      "Apollo Router's execution of a Defer node (the primary block first, each deferred block after it, as `multipart/mixed;deferSpec=20220824` parts), each block run through @apollo/gateway's executeQueryPlan; held to the same query without @defer, run by the gateway itself",
    checked: [
      { package: '@apollo/gateway', version: '2.14.4' },
      { package: '@apollo/query-planner', version: '2.14.4' },
    ],
    comparisonTest: 'test/e2e/live/live-defer.differential.test.ts',
  },
  'static-cache-policy': {
    title: "a document's cache policy from the schema's @cacheControl hints, computed once",
    source: 'lib/graphql/static-cache-policy.ts',
    copies:
      "Apollo Server's cache-control plugin's rules (a composite field takes its type's hint then its own, inheritMaxAge, root and composite fields default to 0, PRIVATE wins, the shortest maxAge) and @apollo/subgraph's restriction of `_entities` by each entity type's hint, per document instead of per resolved field: where the embedded gateway runs a subgraph (LocalGraphQLDataSource reports no hints) and behind a subgraph server's compiled executor (no per-field hooks); it differs on purpose in counting every selected field, also those the data never reaches (stricter, never looser)",
    checked: [
      { package: '@apollo/server', version: '5.5.1' },
      { package: '@apollo/subgraph', version: '2.14.4' },
    ],
    comparisonTest: 'test/unit/static-cache-policy.comparison.test.ts',
  },
};
