import type { SocialTokenService } from '../../../lib/auth/social-auth/social-token.service.ts';
import type { SubgraphRequestInfo } from '../../subgraph.ts';
import type { SocialAccess, Viewer } from './social-access.ts';
import type { SocialHost } from '../../../contracts/social-graph.ts';
import { socialErrors } from './social-errors.ts';

/**
 * The viewer of one request to a social subgraph, looked up at most once (the token read and, on the parent host, the page
 * roles), whichever resolver asks first. Made lazily so that a request whose fields need no viewer costs no query, and
 * so that a token error surfaces as the error of the field that needed the token.
 */
export type ViewerOf = () => Promise<Viewer>;

/** The bearer token of an Authorization header (`Bearer` or the Graph API's older `OAuth` scheme, any case). */
export function bearerToken(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const match = /^(?:bearer|oauth)[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  return match ? match[1] : authorization.trim() === '' ? undefined : '\u0000unparsable';
}

function hostOf(value: string | undefined): SocialHost | undefined | 'invalid' {
  if (value === undefined || value === '') return undefined;
  return value === 'own' || value === 'parent' ? value : 'invalid';
}

export function createViewerOf(tokens: SocialTokenService, access: SocialAccess, request: SubgraphRequestInfo): ViewerOf {
  let viewer: Promise<Viewer> | undefined;
  return () => {
    viewer ??= (async () => {
      const host = hostOf(request.socialHost);
      if (host === 'invalid') throw socialErrors.invalidParameter('X-Social-Host', 'X-Social-Host must be own or parent.');
      const credential = await tokens.authenticate(bearerToken(request.authorization));
      return access.viewer(credential, host);
    })();
    return viewer;
  };
}
