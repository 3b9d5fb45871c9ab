import type { SubgraphMigrations } from '../../../lib/database/database.ts';
import * as createUserExample from './2026-11-21-001-create-user-example.ts';

/** The users subgraph's migrations, in order. Names sort in the order they must run. */
export const usersMigrations: SubgraphMigrations = {
  schema: 'users',
  migrations: {
    '2026-11-21-001-create-user-example': createUserExample,
  },
};
