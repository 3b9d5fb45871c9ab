import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import { Int64Scalar, UInt64Scalar } from '../../lib/graphql-scalars.ts';
import type { UsersContext } from './users-context.ts';
import {
  GENDER_TYPES,
  type CreateUserExampleInput,
  type ListParamsInput,
  type UpdateUserExamplePatch,
  type UserExample,
} from './user-example.types.ts';

interface UpdateArgs {
  id: string;
  input: { [K in keyof UpdateUserExamplePatch]?: UpdateUserExamplePatch[K] | null };
}

/** GraphQL `null` in an update input means "not sent"; every other value, 0 and "" included, is written. */
function presentFields(input: UpdateArgs['input']): UpdateUserExamplePatch {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== undefined));
}

/** Resolvers only decode arguments, call the service and encode; every rule lives in the service. */
export const userExampleResolvers: GraphQLResolverMap<UsersContext> = {
  UInt64: UInt64Scalar,
  Int64: Int64Scalar,
  GenderType: GENDER_TYPES,
  UserExample: {
    __resolveReference: (reference: { id: string }, context: UsersContext) => context.userExampleLoader.load(reference.id),
    createdAt: (record: UserExample) => record.createdAt.toISOString(),
    updatedAt: (record: UserExample) => record.updatedAt.toISOString(),
  },
  Query: {
    userExample: (_: unknown, args: { id: string }, context: UsersContext) =>
      context.userExamples.getById(context.actor, args.id),
    userExamples: (_: unknown, args: { params: ListParamsInput }, context: UsersContext) =>
      context.userExamples.list(context.actor, args.params),
  },
  Mutation: {
    createUserExample: (_: unknown, args: { input: CreateUserExampleInput }, context: UsersContext) =>
      context.userExamples.create(context.actor, args.input),
    updateUserExample: async (_: unknown, args: UpdateArgs, context: UsersContext) => {
      await context.userExamples.updateById(context.actor, args.id, presentFields(args.input));
      return { id: args.id };
    },
    deleteUserExample: async (_: unknown, args: { id: string }, context: UsersContext) => {
      await context.userExamples.deleteById(context.actor, args.id);
      return { id: args.id };
    },
  },
};
