import { APP_TOKEN_PREFIX, type OAuthCredentials } from '../../lib/auth/oauth1/oauth-credentials.ts';
import { computeSignature, parseOAuthHeader, queryPairs, signaturesMatch } from '../../lib/auth/oauth1/oauth1-signature.ts';
import type { SignedRequest } from '../../lib/auth/signed-request.ts';
import type { SocialTokenService } from '../../lib/auth/social-auth/social-token.service.ts';
import { mediaErrors } from './media-errors.ts';

/**
 * Who is uploading. The upload works in user context only (the reference): OAuth 1.0a requests signed with an app's
 * consumer credentials and a user's access token, or OAuth 2.0 bearer user tokens — the social graph's user tokens, so
 * one identity spans Areas B, C and D. App-only credentials (a consumer-only signature, an app bearer token) are refused
 * with 220, as the reference refuses them.
 */
export interface MediaCaller {
  /** The user: a decimal 64-bit id of the social graph (an account, or a parent-platform user). */
  userId: string;
  scheme: 'oauth1' | 'bearer';
  /**
   * True for an OAuth 1.0a request whose signed media_data the first hop cut (SignedRequest.mediaDataCut): its keys are
   * known and its timestamp is fresh, but its signature could not be checked, so it may only be refused.
   */
  signatureUnchecked?: boolean;
}

export interface MediaAuthRequest {
  authorization: string | undefined;
  signedRequest: SignedRequest | undefined;
  /** The base64 image when the client sent it in an urlencoded body (its signature covers it). */
  mediaData: string | undefined;
}

export interface MediaAuthenticator {
  authenticate(request: MediaAuthRequest): Promise<MediaCaller>;
}

/**
 * The entry points whose signatures the upload accepts: the REST paths of both API versions (v2:
 * rest-adapter/media-upload/media-v2.routes.ts) and the GraphQL endpoint (see SignedRequest).
 */
const UPLOAD_PATHS =
  /^\/(?:1\.1\/media\/(?:upload|metadata\/create)\.json|2\/media\/(?:upload(?:\/initialize|\/\d{1,19}\/(?:append|finalize))?|metadata)|graphql)$/;

const SIGNED_METHODS = new Set(['POST', 'GET']);

const REQUIRED = ['oauth_consumer_key', 'oauth_signature', 'oauth_signature_method', 'oauth_timestamp', 'oauth_nonce'] as const;

export function createMediaAuthenticator(deps: {
  credentials: OAuthCredentials;
  socialTokens: SocialTokenService;
  now: () => Date;
  timestampSkewSecs: number;
}): MediaAuthenticator {
  async function bearer(header: string): Promise<MediaCaller> {
    const match = /^bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
    if (!match) throw mediaErrors.authMissing();
    const token = match[1]!;
    if (token.startsWith(APP_TOKEN_PREFIX)) {
      if (await deps.credentials.findAppToken(token)) throw mediaErrors.appOnly();
      throw mediaErrors.tokenInvalid();
    }
    const credential = await deps.socialTokens.authenticate(token);
    if (credential.kind !== 'token') throw mediaErrors.tokenInvalid();
    return { userId: credential.subjectId, scheme: 'bearer' };
  }

  async function oauth1(header: string, request: MediaAuthRequest): Promise<MediaCaller> {
    const parsed = parseOAuthHeader(header);
    if (!parsed.ok) throw mediaErrors.authMissing();
    const oauth = new Map(parsed.params.filter(([name]) => name.startsWith('oauth_')));
    if (REQUIRED.some((name) => !oauth.get(name))) throw mediaErrors.authMissing();
    const version = oauth.get('oauth_version');
    if (version !== undefined && version !== '1.0') throw mediaErrors.authMissing();
    const timestamp = oauth.get('oauth_timestamp')!;
    if (!/^\d{1,12}$/.test(timestamp)) throw mediaErrors.authMissing();
    // The platform signs with HMAC-SHA1 only.
    if (oauth.get('oauth_signature_method') !== 'HMAC-SHA1') throw mediaErrors.signatureInvalid();

    const signed = request.signedRequest;
    // POST for uploads and the chunked commands, GET for the chunked upload's STATUS (and GraphQL queries).
    if (!signed || !SIGNED_METHODS.has(signed.method.toUpperCase()) || !UPLOAD_PATHS.test(pathOf(signed.url)))
      throw mediaErrors.signatureInvalid();

    const consumerKey = oauth.get('oauth_consumer_key')!;
    const consumer = await deps.credentials.findConsumer(consumerKey);
    if (!consumer || consumer.revoked) throw mediaErrors.signatureInvalid();
    const tokenValue = oauth.get('oauth_token');
    const token = tokenValue ? await deps.credentials.findAccessToken(tokenValue) : undefined;
    if (tokenValue && (!token || token.revoked || token.consumerKey !== consumerKey)) throw mediaErrors.tokenInvalid();

    // Every oauth_* parameter but the signature (oauth_body_hash included), the query, an urlencoded body.
    const protocol = parsed.params.filter(([name]) => name.startsWith('oauth_') && name !== 'oauth_signature');
    const query = queryPairs(signed.url);
    const body: [string, string][] = [...(signed.bodyParams ?? [])];
    if (signed.mediaDataInBody && request.mediaData !== undefined) body.push(['media_data', request.mediaData]);
    // A body cut for its size cannot be checked; the caller (the media service) only refuses such a request, and no
    // nonce is spent on it.
    const checkTimestamp = () => {
      if (Math.abs(deps.now().getTime() / 1000 - Number(timestamp)) > deps.timestampSkewSecs) throw mediaErrors.timestampOutOfBounds();
    };
    if (signed.mediaDataCut) {
      checkTimestamp();
      if (!token) throw mediaErrors.appOnly();
      return { userId: token.userId, scheme: 'oauth1', signatureUnchecked: true };
    }
    const presented = oauth.get('oauth_signature')!;
    const matches = (params: (readonly [string, string])[]) =>
      signaturesMatch(
        presented,
        computeSignature({ method: signed.method, url: signed.url, params }, consumer.consumerSecret, token?.tokenSecret),
      );
    // The reference's best-practice page says multipart uploads sign only the oauth_* parameters (query excluded), while
    // its clients in practice sign the query too: accept either for a body that is not urlencoded.
    const urlencoded = signed.bodyParams !== undefined || signed.mediaDataInBody === true;
    const valid = matches([...protocol, ...query, ...body]) || (!urlencoded && query.length > 0 && matches(protocol));
    if (!valid) throw mediaErrors.signatureInvalid();

    // Only a verified request's timestamp and nonce mean anything (an unsigned one must not burn a nonce).
    checkTimestamp();
    const fresh = await deps.credentials.recordNonce({ consumerKey, token: tokenValue, nonce: oauth.get('oauth_nonce')!, timestamp });
    if (!fresh) throw mediaErrors.signatureInvalid();

    if (!token) throw mediaErrors.appOnly();
    return { userId: token.userId, scheme: 'oauth1' };
  }

  return {
    async authenticate(request) {
      const header = request.authorization?.trim();
      if (!header) throw mediaErrors.authMissing();
      const scheme = header.split(/[ \t]/, 1)[0]!.toLowerCase();
      if (scheme === 'oauth') return oauth1(header, request);
      if (scheme === 'bearer') return bearer(header);
      throw mediaErrors.authMissing();
    },
  };
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return '';
  }
}
