import DataLoader from 'dataloader';
import type { Actor } from '../../lib/auth/auth.ts';
import type { UserExample } from './user-example.types.ts';
import type { UserExampleService } from './user-example.service.ts';

/** Per-request context of the users subgraph. */
export interface UsersContext {
  actor: Actor;
  userExamples: UserExampleService;
  /** Batches entity references of one request into one SELECT. */
  userExampleLoader: DataLoader<string, UserExample | undefined>;
}

export function createUsersContext(actor: Actor, userExamples: UserExampleService): UsersContext {
  return {
    actor,
    userExamples,
    userExampleLoader: new DataLoader((ids: readonly string[]) => userExamples.loadByIds(ids)),
  };
}
