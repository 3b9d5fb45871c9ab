import { readFileSync } from 'node:fs';

/**
 * Where the composed supergraph is committed, and how the gateways read it. Apart from the members and their
 * composition (supergraph-config.ts), so that a serving process never loads @apollo/composition or the subgraphs' SDL.
 */
export const SUPERGRAPH_FILE = new URL('./supergraph.graphql', import.meta.url);

/**
 * The supergraph's API schema, committed beside it: what clients of the gateway see (no join/link machinery). The REST
 * adapter's typed operations are generated against it (codegen.ts), and client teams may generate theirs from it.
 */
export const API_SCHEMA_FILE = new URL('./api-schema.graphql', import.meta.url);

/** The committed supergraph SDL the gateway serves. */
export function readSupergraph(): string {
  return readFileSync(SUPERGRAPH_FILE, 'utf8');
}
