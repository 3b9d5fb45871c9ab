import { decodeSignedRequest } from '../../lib/auth/signed-request.ts';
import type { SubgraphRequestInfo } from '../subgraph.ts';
import type { MediaAuthRequest } from './media-auth.ts';
import type { MediaService } from './media.service.ts';

/** Per-request context of the media subgraph: the caller's credentials, checked by the service when an upload asks. */
export interface MediaContext {
  media: MediaService;
  credentials: Omit<MediaAuthRequest, 'mediaData'>;
}

export function createMediaContext(request: SubgraphRequestInfo, media: MediaService): MediaContext {
  return {
    media,
    credentials: { authorization: request.authorization, signedRequest: decodeSignedRequest(request.signedRequest) },
  };
}
