import { GraphQLUpload } from 'graphql-upload-ts';
import { UInt64Scalar } from '../../lib/graphql/graphql-scalars.ts';
import type { MediaProcessingState, Resolvers } from './generated/resolvers-types.ts';

/** Resolvers decode arguments, call the service and encode; every rule lives in the service. */
export const mediaResolvers: Resolvers = {
  UInt64: UInt64Scalar,
  Upload: GraphQLUpload,
  Query: {
    mediaUploadStatus: async (_root, args, context) => context.chunked.status(context.credentials, args),
  },
  Mutation: {
    uploadMedia: async (_root, args, context) => context.media.upload(context.credentials, args),
    initMediaUpload: async (_root, args, context) => context.chunked.init(context.credentials, args),
    appendMediaUpload: async (_root, args, context) => context.chunked.append(context.credentials, args),
    finalizeMediaUpload: async (_root, args, context) => context.chunked.finalize(context.credentials, args),
    createMediaMetadata: async (_root, args, context) => context.metadata.createMetadata(context.credentials, args),
  },
  MediaMetadata: {
    mediaIdString: (outcome) => outcome.mediaId,
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
  MediaUploadSession: {
    mediaId: (outcome) => outcome.media.mediaId,
    mediaIdString: (outcome) => outcome.media.mediaId,
    mediaKey: (outcome) => outcome.media.mediaKey,
    size: (outcome) => outcome.media.size,
    expiresAfterSecs: (outcome) => outcome.media.expiresAfterSecs,
    image: (outcome) => outcome.media.image,
    video: (outcome) => outcome.media.video,
    processingInfo: (outcome) => outcome.media.processingInfo,
    rateLimit: (outcome) => outcome.rateLimit,
  },
  MediaUploadSegment: {
    mediaIdString: (outcome) => outcome.mediaId,
    expiresAt: (outcome) => outcome.expiresAt.toISOString(),
  },
  MediaProcessingInfo: {
    state: (info) => info.state.toUpperCase() as MediaProcessingState,
  },
};
