import type { GraphQLResolverMap } from '@apollo/subgraph/dist/schema-helper/resolverMap.js';
import type { FileUpload } from 'graphql-upload-ts';
import { GraphQLUpload } from 'graphql-upload-ts';
import { UInt64Scalar } from '../../lib/graphql-scalars.ts';
import type { MediaContext } from './media-context.ts';
import type { UploadOutcome } from './media.service.ts';

/** Resolvers decode arguments, call the service and encode; every rule lives in the service. */
export const mediaResolvers: GraphQLResolverMap<MediaContext> = {
  UInt64: UInt64Scalar,
  Upload: GraphQLUpload,
  Mutation: {
    uploadMedia: async (
      _root: unknown,
      args: {
        media?: Promise<FileUpload> | null;
        mediaData?: string | null;
        mediaCategory?: string | null;
        additionalOwners?: string[] | null;
      },
      context: MediaContext,
    ) => context.media.upload(context.credentials, args),
  },
  UploadedMedia: {
    mediaId: (outcome: UploadOutcome) => outcome.media.mediaId,
    mediaIdString: (outcome: UploadOutcome) => outcome.media.mediaId,
    mediaKey: (outcome: UploadOutcome) => outcome.media.mediaKey,
    size: (outcome: UploadOutcome) => outcome.media.size,
    expiresAfterSecs: (outcome: UploadOutcome) => outcome.media.expiresAfterSecs,
    image: (outcome: UploadOutcome) => outcome.media.image,
    rateLimit: (outcome: UploadOutcome) => outcome.rateLimit,
  },
};
