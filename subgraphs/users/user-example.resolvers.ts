import { InvalidArgumentError } from '../../lib/errors.ts';
import { Int64Scalar, UInt64Scalar } from '../../lib/graphql/graphql-scalars.ts';
import type { Resolvers, UpdateUserExampleInput } from './generated/resolvers-types.ts';
import { GENDER_TYPES } from '../../contracts/user-records.ts';
import type { UpdateUserExamplePatch } from './user-example.types.ts';

/** GraphQL `null` in an update input means "not sent"; every other value, 0 and "" included, is written. */
function presentFields(input: UpdateUserExampleInput): UpdateUserExamplePatch {
  const { genderNumber, ...fields } = input;
  const present: UpdateUserExamplePatch = Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== null && value !== undefined),
  );
  const gender = oneGender(fields.gender, genderNumber);
  return gender === undefined ? present : { ...present, gender };
}

/**
 * The gender an input gives, by name (the enum's value) or by number; undefined when neither. Both at once is a
 * malformed input, as a field given twice is in protojson.
 */
function oneGender(gender: number | null | undefined, genderNumber: number | null | undefined): number | undefined {
  const byName = gender ?? undefined;
  const byNumber = genderNumber ?? undefined;
  if (byName !== undefined && byNumber !== undefined) {
    throw new InvalidArgumentError('give gender or genderNumber, not both', [
      { field: 'genderNumber', description: 'gender is given too' },
    ]);
  }
  return byName ?? byNumber;
}

/** Resolvers only decode arguments, call the service and encode; every rule lives in the service. */
export const userExampleResolvers: Resolvers = {
  UInt64: UInt64Scalar,
  Int64: Int64Scalar,
  GenderType: GENDER_TYPES,
  UserExample: {
    // An unknown or deleted id resolves to null, as the gateway expects of a missing entity.
    __resolveReference: async (reference, context) => (await context.userExampleLoader.load(reference.id)) ?? null,
    createdAt: (record) => record.createdAt.toISOString(),
    updatedAt: (record) => record.updatedAt.toISOString(),
  },
  Query: {
    userExample: (_, args, context) => context.userExamples.getById(context.actor, args.id),
    userExamples: (_, args, context) => context.userExamples.list(context.actor, args.params),
  },
  Mutation: {
    createUserExample: (_, args, context) => {
      const { genderNumber, ...input } = args.input;
      // Absent, the proto's zero value (UNKNOWN), as on the other transports.
      return context.userExamples.create(context.actor, { ...input, gender: oneGender(input.gender, genderNumber) ?? 0 });
    },
    updateUserExample: async (_, args, context) => {
      await context.userExamples.updateById(context.actor, args.id, presentFields(args.input));
      return { id: args.id };
    },
    deleteUserExample: async (_, args, context) => {
      await context.userExamples.deleteById(context.actor, args.id);
      return { id: args.id };
    },
  },
};
