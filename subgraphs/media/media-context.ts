import { decodeSignedRequest } from '../../lib/auth/signed-request.ts';
import type { SubgraphRequestInfo } from '../subgraph.ts';
import type { MediaAuthRequest } from './media-auth.ts';
import type { MediaService } from './media.service.ts';
import type { ChunkedUploadService } from './chunked-upload/chunked-upload.service.ts';

/** Per-request context of the media subgraph: the caller's credentials, checked by the service when an upload asks. */
export interface MediaContext {
  media: MediaService;
  chunked: ChunkedUploadService;
  credentials: Omit<MediaAuthRequest, 'mediaData'>;
}

export function createMediaContext(request: SubgraphRequestInfo, media: MediaService, chunked: ChunkedUploadService): MediaContext {
  return {
    media,
    chunked,
    credentials: { authorization: request.authorization, signedRequest: decodeSignedRequest(request.signedRequest) },
  };
}
