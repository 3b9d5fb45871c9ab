/**
 * Stand-in `operation-cache` (lib/stand-ins/stand-in-registry.ts): builds the federation `Operation` that
 * @apollo/gateway's executeQueryPlan needs once per distinct operation, instead of at every request.
 *
 * executeQueryPlan (dist/executeQueryPlan.js) starts each execution with
 * `operationFromDocument(apiSchema, { kind: DOCUMENT, definitions: [operation, ...fragments] }, { validate: false })`:
 * a fresh document wrapped around the operation definition of the request's parsed document, which Apollo Server keeps
 * in its document cache and hands back, the same objects, for every request with the same query text. Turning that
 * document into an Operation re-reads the whole selection tree against the schema, on every request
 * (bench/README.md, "Stand-ins"); the result depends only on the schema and those definitions, and executeQueryPlan and
 * the result shaping only read it.
 *
 * The gateway calls operationFromDocument through the CommonJS exports of @apollo/federation-internals (whose index
 * re-exports dist/operations.js's exports as live getters), and offers no option to supply an Operation; replacing that
 * export is the one seam there is, as for the result shaping (result-shaping-install.ts). Only calls of executeQueryPlan's
 * shape are memoised — an unnamed, unvalidated conversion of a document whose first definition is an operation — keyed
 * by the schema object and that definition object (weakly: a new supergraph brings a new schema, a document evicted
 * from Apollo Server's cache takes its entry with it). Every other call, and any call that throws, runs Apollo's function
 * as before. The gate installs it only over the releases the registry lists.
 */
import type { DocumentNode } from 'graphql';
import { STAND_INS } from '../../lib/stand-ins/stand-in-registry.ts';
import { setApolloExport, type ApolloExport } from './apollo-export-patch.ts';

type OperationFromDocument = (schema: object, document: DocumentNode, options?: { operationName?: string; validate?: boolean }) => object;

const OPERATION_FROM_DOCUMENT: ApolloExport = {
  file: STAND_INS['operation-cache'].loads[0]!,
  exportName: 'operationFromDocument',
  original: Symbol.for('tributary.gateway.apolloOperationFromDocument'),
};

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

/** Puts the memo in place (`on`) or Apollo's own function back; the stand-in's gate has passed when `on`. */
export function setOperationCache(on: boolean): void {
  setApolloExport(OPERATION_FROM_DOCUMENT, on, memoisedOperationFromDocument);
}
