/**
 * Builds the federation `Operation` that @apollo/gateway's executeQueryPlan needs once per distinct operation, instead of
 * at every request.
 *
 * executeQueryPlan (dist/executeQueryPlan.js) starts each execution with
 * `operationFromDocument(apiSchema, { kind: DOCUMENT, definitions: [operation, ...fragments] }, { validate: false })`:
 * a fresh document wrapped around the operation definition of the request's parsed document, which Apollo Server keeps
 * in its document cache and hands back, the same objects, for every request with the same query text. Turning that
 * document into an Operation re-reads the whole selection tree against the schema (about 4 % of a REST GetByID's CPU);
 * the result depends only on the schema and those definitions, and executeQueryPlan and the result shaping only read it.
 *
 * The gateway calls operationFromDocument through the CommonJS exports of @apollo/federation-internals (whose index
 * re-exports dist/operations.js's exports as live getters), and offers no option to supply an Operation; replacing that
 * export is the one seam there is, as for the result shaping (result-shaping-install.ts). Only calls of executeQueryPlan's
 * shape are memoised — an unnamed, unvalidated conversion of a document whose first definition is an operation — keyed
 * by the schema object and that definition object (weakly: a new supergraph brings a new schema, a document evicted
 * from Apollo Server's cache takes its entry with it). Every other call, and any call that throws, runs Apollo's function
 * as before. It is installed only over the release checked here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { DocumentNode } from 'graphql';

/** The @apollo/federation-internals release whose operationFromDocument and whose caller this was checked against. */
export const CHECKED_FEDERATION_INTERNALS_VERSION = '2.14.4';

type OperationFromDocument = (schema: object, document: DocumentNode, options?: { operationName?: string; validate?: boolean }) => object;

const APOLLO_ORIGINAL = Symbol.for('tributary.gateway.apolloOperationFromDocument');

interface OperationsModule {
  operationFromDocument: OperationFromDocument & { [APOLLO_ORIGINAL]?: OperationFromDocument };
}

function loadOperations(): { version: string; module: OperationsModule } {
  const require = createRequire(import.meta.url);
  const main = require.resolve('@apollo/federation-internals');
  const { version } = JSON.parse(readFileSync(join(dirname(dirname(main)), 'package.json'), 'utf8')) as { version: string };
  return { version, module: require(join(dirname(main), 'operations.js')) as OperationsModule };
}

export type OperationCacheInstall = { installed: true } | { installed: false; reason: string };

/** Wraps `original` with the memo described above. */
export function memoisedOperationFromDocument(original: OperationFromDocument): OperationFromDocument {
  const bySchema = new WeakMap<object, WeakMap<object, object>>();
  return (schema, document, options) => {
    const first = document.definitions[0];
    if (options?.validate !== false || options.operationName !== undefined || first?.kind !== 'OperationDefinition') {
      return original(schema, document, options);
    }
    let operations = bySchema.get(schema);
    if (!operations) {
      operations = new WeakMap();
      bySchema.set(schema, operations);
    }
    let operation = operations.get(first);
    if (!operation) {
      operation = original(schema, document, options);
      operations.set(first, operation);
    }
    return operation;
  };
}

export function installOperationCache(): OperationCacheInstall {
  const { version, module } = loadOperations();
  if (version !== CHECKED_FEDERATION_INTERNALS_VERSION) {
    return { installed: false, reason: `@apollo/federation-internals is ${version}, the operation cache was checked against ${CHECKED_FEDERATION_INTERNALS_VERSION}` };
  }
  if (typeof module.operationFromDocument !== 'function') {
    return { installed: false, reason: '@apollo/federation-internals/dist/operations.js exports no operationFromDocument' };
  }
  const original = module.operationFromDocument[APOLLO_ORIGINAL] ?? module.operationFromDocument;
  module.operationFromDocument = Object.assign(memoisedOperationFromDocument(original), { [APOLLO_ORIGINAL]: original });
  return { installed: true };
}
