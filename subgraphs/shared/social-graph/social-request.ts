import type { SocialTokenService } from '../../../lib/auth/social-auth/social-token.service.ts';
import type { SubgraphRequestInfo } from '../../subgraph.ts';
import type { SocialAccess, Viewer } from './social-access.ts';
import type { SocialHost } from '../../../contracts/social-graph.ts';
import { socialErrors } from './social-errors.ts';
import { bearerToken } from '../../../lib/auth/bearer-token.ts';

/**
 * The viewer of one request to a social subgraph, looked up at most once (the token read and, on the parent host, the page
 * roles), whichever resolver asks first. Made lazily so that a request whose fields need no viewer costs no query, and
 * so that a token error surfaces as the error of the field that needed the token.
 */
export type ViewerOf = (() => Promise<Viewer>) & {
  /**
   * The viewer once looked up, undefined before (or when the lookup failed). Resolvers of per-object fields use it to
   * stay synchronous: by the time a list's objects resolve, a root field has awaited the viewer, and a resolver that
   * returns a value rather than a promise spares graphql-js a promise per object (thousands in a deep read).
   */
  settled(): Viewer | undefined;
};

/**
 * `work(viewer)` — at once when the viewer is already known, after the lookup otherwise — so that a per-object resolver
 * returns a plain value whenever it can.
 */
export function withViewer<T>(viewerOf: ViewerOf, work: (viewer: Viewer) => T): T | Promise<T> {
  const viewer = viewerOf.settled();
  return viewer !== undefined ? work(viewer) : viewerOf().then(work);
}

function hostOf(value: string | undefined): SocialHost | undefined | 'invalid' {
  if (value === undefined || value === '') return undefined;
  return value === 'own' || value === 'parent' ? value : 'invalid';
}

export function createViewerOf(tokens: SocialTokenService, access: SocialAccess, request: SubgraphRequestInfo): ViewerOf {
  let viewer: Promise<Viewer> | undefined;
  let settled: Viewer | undefined;
  const lookUp = async () => {
    const host = hostOf(request.socialHost);
    if (host === 'invalid') throw socialErrors.invalidParameter('X-Social-Host', 'X-Social-Host must be own or parent.');
    const credential = await tokens.authenticate(bearerToken(request.authorization));
    return access.viewer(credential, host);
  };
  const viewerOf = () => {
    if (viewer) return viewer;
    // The social subgraphs of one in-process gateway request share the lookup (same token, same host, same rules): a
    // deep read reaches two of them, and each read the token otherwise.
    const key = `social-viewer\n${request.socialHost ?? ''}\n${request.authorization ?? ''}`;
    const shared = request.shared?.get(key) as Promise<Viewer> | undefined;
    const looked = shared ?? lookUp();
    if (!shared) request.shared?.set(key, looked);
    viewer = looked.then((found) => (settled = found));
    return viewer;
  };
  return Object.assign(viewerOf, { settled: () => settled });
}

/**
 * The viewer's facts the social graph's rules read, as the gateway's fetch cache keys a reply by (Subgraph.cacheViewer):
 * the login type, who, the app, the permissions granted and, on the parent host, the page roles (each with its tasks).
 * The token is read as a request reads it, so a token revoked or expired since gives undefined (no reuse).
 */
export async function socialCacheViewer(viewerOf: ViewerOf): Promise<string | undefined> {
  let viewer: Viewer;
  try {
    viewer = await viewerOf();
  } catch {
    return undefined;
  }
  const roles = [...viewer.pageRoles.values()]
    .map(
      (role) =>
        `${role.accountId}/${role.pageId}/${role.businessId ?? ''}/${role.viaBusinessManager ? 1 : 0}/${[...role.tasks].sort().join('+')}`,
    )
    .sort();
  return JSON.stringify([viewer.host, viewer.subjectId, viewer.appId, [...viewer.permissions].sort(), roles]);
}
