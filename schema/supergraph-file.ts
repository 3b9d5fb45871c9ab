import { readFileSync } from 'node:fs';

/**
 * Where the composed supergraph is committed, and how the gateways read it. Apart from the members and their
 * composition (supergraph-config.ts), so that a serving process never loads @apollo/composition or the subgraphs' SDL.
 */
export const SUPERGRAPH_FILE = new URL('./supergraph.graphql', import.meta.url);

/** The committed supergraph SDL the gateway serves. */
export function readSupergraph(): string {
  return readFileSync(SUPERGRAPH_FILE, 'utf8');
}
