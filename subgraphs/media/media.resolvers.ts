import { GraphQLUpload } from 'graphql-upload-ts';
import { UInt64Scalar } from '../../lib/graphql/graphql-scalars.ts';
import type { Resolvers } from './generated/resolvers-types.ts';

/** Resolvers decode arguments, call the service and encode; every rule lives in the service. */
export const mediaResolvers: Resolvers = {
  UInt64: UInt64Scalar,
  Upload: GraphQLUpload,
  Mutation: {
    uploadMedia: async (_root, args, context) => context.media.upload(context.credentials, args),
  },
  UploadedMedia: {
    mediaId: (outcome) => outcome.media.mediaId,
    mediaIdString: (outcome) => outcome.media.mediaId,
    mediaKey: (outcome) => outcome.media.mediaKey,
    size: (outcome) => outcome.media.size,
    expiresAfterSecs: (outcome) => outcome.media.expiresAfterSecs,
    image: (outcome) => outcome.media.image,
    rateLimit: (outcome) => outcome.rateLimit,
  },
};
