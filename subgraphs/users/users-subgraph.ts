import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import type { Actor, TokenService } from '../../lib/auth/auth.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { PasswordHasher } from '../../lib/auth/password.ts';
import type { ListLimits } from './list-params.ts';
import type { Subgraph, SubgraphSchemaModule } from '../subgraph.ts';
import type { UsersTables } from './user-example.repository.ts';
import { userExampleResolvers } from './user-example.resolvers.ts';
import { createUserExampleService, type UserExampleService } from './user-example.service.ts';
import { createUsersContext, type UsersContext } from './users-context.ts';

/** The users subgraph's SDL, read beside this file. */
export const usersTypeDefs = parse(readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8'));

export interface UsersSubgraphDeps {
  database: DatabaseHandle;
  tokens: TokenService;
  passwords: PasswordHasher;
  listLimits: ListLimits;
  /** The most GetByID reads coalesced into one statement (USERS_READ_BATCH_MAX). */
  readBatchMax: number;
}

export interface UsersSubgraph extends Subgraph<UsersContext> {
  /** The service the gRPC server calls too. */
  service: UserExampleService;
}

/** Builds the users subgraph (Area A). Pure: opens nothing, listens on nothing. */
export function createUsersSubgraph(deps: UsersSubgraphDeps): UsersSubgraph {
  const service = createUserExampleService({
    db: deps.database.db.withTables<UsersTables>(),
    passwords: deps.passwords,
    listLimits: deps.listLimits,
    readBatchMax: deps.readBatchMax,
  });
  const schema = buildSubgraphSchema([{ typeDefs: usersTypeDefs, resolvers: userExampleResolvers } as SubgraphSchemaModule]);
  return {
    name: 'users',
    typeDefs: usersTypeDefs,
    schema,
    service,
    createContext: (request) => createUsersContext(deps.tokens.authenticate(request.authorization), service),
    cacheViewer: ({ actor }) => Promise.resolve(usersCacheViewer(actor)),
  };
}

/**
 * Whose reply a users subgraph reply is, for the fetch cache: every signed-in user may read every record, and no field
 * differs by reader (user-example.service.ts, sponge's rule), so a valid token is all a reply depends on. Writes are
 * where the owner or an admin is required.
 */
export function usersCacheViewer(actor: Actor): string | undefined {
  return actor.kind === 'user' ? 'user' : undefined;
}
