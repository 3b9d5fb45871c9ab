import { readFileSync } from 'node:fs';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import type { Config } from '../../lib/config.ts';
import type { DatabaseHandle } from '../../lib/database/database.ts';
import type { Logger } from '../../lib/logger.ts';
import type { Metrics } from '../../lib/telemetry/metrics.ts';
import type { OAuthCredentials } from '../../lib/auth/oauth1/oauth-credentials.ts';
import type { SocialTokenService } from '../../lib/auth/social-auth/social-token.service.ts';
import type { BlobStore } from '../shared/media-store/blob-store.ts';
import type { MediaTables } from '../shared/media-store/media-upload.repository.ts';
import type { Subgraph, SubgraphSchemaModule } from '../subgraph.ts';
import { createMediaAuthenticator } from './media-auth.ts';
import { createMediaContext, type MediaContext } from './media-context.ts';
import { createUploadRateLimiter } from './media-rate-limiter.ts';
import { mediaResolvers } from './media.resolvers.ts';
import { createMediaService, MAX_DIMENSION, MIN_DIMENSION, type MediaService } from './media.service.ts';
import { createMediaSweeper, type MediaSweeper } from './media-sweeper.ts';
import { createChunkedUploadService, type ChunkedUploadService } from './chunked-upload/chunked-upload.service.ts';
import { createMediaProcessor, type MediaProcessor } from './chunked-upload/media-processor.ts';
import { createMediaMetadataService } from './media-metadata.service.ts';

/** The media subgraph's SDL, read beside this file. */
export const mediaTypeDefs = parse(readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8'));

export interface MediaSubgraphDeps {
  config: Config['media'];
  database: DatabaseHandle;
  blobs: BlobStore;
  socialTokens: SocialTokenService;
  credentials: OAuthCredentials;
  logger: Logger;
  now: () => Date;
  metrics?: Pick<Metrics, 'observeUpload' | 'observeRateLimited'>;
}

export interface MediaSubgraph extends Subgraph<MediaContext> {
  service: MediaService;
  chunked: ChunkedUploadService;
  /** Runs the processing of animated GIFs and videos after FINALIZE. */
  processor: MediaProcessor;
  /** Not started here: the process hosting the subgraph starts and stops it. */
  sweeper: MediaSweeper;
}

/** Builds the media subgraph (Area D: the simple image upload). Pure: opens nothing, starts nothing. */
export function createMediaSubgraph(deps: MediaSubgraphDeps): MediaSubgraph {
  const db = deps.database.db.withTables<MediaTables>();
  const auth = createMediaAuthenticator({
    credentials: deps.credentials,
    socialTokens: deps.socialTokens,
    now: deps.now,
    timestampSkewSecs: deps.config.oauthTimestampSkewSecs,
  });
  const rateLimiter = createUploadRateLimiter({
    db,
    now: deps.now,
    limit: deps.config.uploadsPerWindow,
    windowSecs: deps.config.windowSecs,
  });
  const service = createMediaService({
    db,
    blobs: deps.blobs,
    auth,
    rateLimiter,
    now: deps.now,
    logger: deps.logger,
    maxBytes: deps.config.maxBytes,
    expiresAfterSecs: deps.config.expiresAfterSecs,
    ...(deps.metrics ? { metrics: deps.metrics } : {}),
  });
  const processor = createMediaProcessor({
    db,
    blobs: deps.blobs,
    now: deps.now,
    logger: deps.logger,
    timeoutMs: deps.config.chunked.processingTimeoutMs,
    minDimension: MIN_DIMENSION,
    maxDimension: MAX_DIMENSION,
  });
  const chunked = createChunkedUploadService({
    db,
    blobs: deps.blobs,
    auth,
    rateLimiter,
    processor,
    now: deps.now,
    logger: deps.logger,
    expiresAfterSecs: deps.config.expiresAfterSecs,
    imageMaxBytes: deps.config.maxBytes,
    gifMaxBytes: deps.config.chunked.gifMaxBytes,
    videoMaxBytes: deps.config.chunked.videoMaxBytes,
    segmentMaxBytes: deps.config.chunked.segmentMaxBytes,
  });
  const metadata = createMediaMetadataService({ db, auth, rateLimiter, now: deps.now });
  const sweeper = createMediaSweeper({
    db,
    blobs: deps.blobs,
    credentials: deps.credentials,
    now: deps.now,
    logger: deps.logger,
    nonceHorizonMs: 2 * deps.config.oauthTimestampSkewSecs * 1000,
    rateWindowMs: deps.config.windowSecs * 1000,
    resumeProcessing: () => processor.resumeStalled(),
  });
  const schema = buildSubgraphSchema([{ typeDefs: mediaTypeDefs, resolvers: mediaResolvers } as SubgraphSchemaModule]);
  return {
    name: 'media',
    typeDefs: mediaTypeDefs,
    schema,
    service,
    chunked,
    processor,
    sweeper,
    createContext: (request) => createMediaContext(request, { media: service, chunked, metadata }),
  };
}
