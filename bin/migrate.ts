/** npm run migrate: applies pending migrations of every subgraph and exits. */
import { createDatabase, migrateToLatest } from '../lib/database/database.ts';
import { ALL_MIGRATIONS } from '../subgraphs/index.ts';
import { prepareProcess } from './system/process.ts';

const { config } = prepareProcess('migrate');
const database = await createDatabase(config.database);
try {
  const applied = await migrateToLatest(database.db, ALL_MIGRATIONS);
  console.log(applied.length > 0 ? `applied:\n  ${applied.join('\n  ')}` : 'database is up to date');
} finally {
  await database.close();
}
