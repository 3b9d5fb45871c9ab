import { decodeSignedRequest } from '../../lib/auth/signed-request.ts';
import type { SubgraphRequestInfo } from '../subgraph.ts';
import type { MediaAuthRequest } from './media-auth.ts';
import type { MediaService } from './media.service.ts';
import type { ChunkedUploadService } from './chunked-upload/chunked-upload.service.ts';
import type { MediaMetadataService } from './media-metadata.service.ts';

/** Per-request context of the media subgraph: the caller's credentials, checked by the service when an upload asks. */
export interface MediaContext {
  media: MediaService;
  chunked: ChunkedUploadService;
  metadata: MediaMetadataService;
  credentials: Omit<MediaAuthRequest, 'mediaData'>;
}

export function createMediaContext(
  request: SubgraphRequestInfo,
  services: { media: MediaService; chunked: ChunkedUploadService; metadata: MediaMetadataService },
): MediaContext {
  return {
    ...services,
    credentials: { authorization: request.authorization, signedRequest: decodeSignedRequest(request.signedRequest) },
  };
}
