/** npm run compose: re-composes schema/supergraph.graphql from the subgraphs' SDL. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { composeSupergraph } from '../schema/supergraph-config.ts';
import { SUPERGRAPH_FILE } from '../schema/supergraph-file.ts';

const sdl = composeSupergraph();
writeFileSync(SUPERGRAPH_FILE, sdl.endsWith('\n') ? sdl : `${sdl}\n`);
console.log(`wrote ${fileURLToPath(SUPERGRAPH_FILE)}`);
