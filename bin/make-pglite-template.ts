/**
 * node dist/bin/make-pglite-template.js <file>: writes the embedded database's template (lib/database/pglite-template.ts)
 * with every subgraph's migrations. Run by the build (bin/build.mjs); not a command of its own.
 */
import { writePgliteTemplate } from '../lib/database/pglite-template.ts';
import { ALL_MIGRATIONS } from '../subgraphs/index.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: node dist/bin/make-pglite-template.js <file>');
  process.exit(2);
}
await writePgliteTemplate(file, ALL_MIGRATIONS);
