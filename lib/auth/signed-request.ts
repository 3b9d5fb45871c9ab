/**
 * The HTTP request as an OAuth 1.0a client signed it. The signature covers the method, the URL the client addressed (with
 * its query) and an urlencoded body's parameters, none of which survive the trip to a subgraph: the REST adapter turns
 * the request into a GraphQL operation and the gateway makes requests of its own. So the first hop describes the
 * client's request once, and the description travels with the operation (header X-Signed-Request) to the service that
 * verifies the signature.
 *
 * Forging the description gains nothing: the signature must still verify against it with secrets only the client holds,
 * its nonce is used once, and the media service accepts only descriptions of its own upload entry points.
 */
export interface SignedRequest {
  method: string;
  /** Absolute URL the client addressed, query included. */
  url: string;
  /** Parameters of an application/x-www-form-urlencoded body, in order; `media_data` is left out (see below). */
  bodyParams?: [string, string][];
  /** True when the body carried `media_data`: it is signed too, and travels as the operation's variable, not here. */
  mediaDataInBody?: boolean;
  /**
   * True when that `media_data` was longer than any acceptable image and the first hop kept only its beginning: the
   * signature over it cannot be checked, and the request can only be refused as too large.
   */
  mediaDataCut?: boolean;
}

export const SIGNED_REQUEST_HEADER = 'x-signed-request';

/** Header-safe form (base64url of JSON: header values must be Latin-1, parameters need not be). */
export function encodeSignedRequest(request: SignedRequest): string {
  return Buffer.from(JSON.stringify(request), 'utf8').toString('base64url');
}

export function decodeSignedRequest(text: string | undefined): SignedRequest | undefined {
  if (text === undefined || text === '' || text.length > 65_536) return undefined;
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as Partial<SignedRequest>;
    if (typeof value !== 'object' || value === null) return undefined;
    if (typeof value.method !== 'string' || typeof value.url !== 'string') return undefined;
    const pairs = value.bodyParams;
    if (
      pairs !== undefined &&
      !(
        Array.isArray(pairs) &&
        pairs.every((pair) => Array.isArray(pair) && pair.length === 2 && pair.every((part) => typeof part === 'string'))
      )
    ) {
      return undefined;
    }
    return {
      method: value.method,
      url: value.url,
      ...(pairs ? { bodyParams: pairs } : {}),
      ...(value.mediaDataInBody === true ? { mediaDataInBody: true } : {}),
      ...(value.mediaDataCut === true ? { mediaDataCut: true } : {}),
    };
  } catch {
    return undefined;
  }
}

type Headers = Record<string, string | string[] | undefined>;

function first(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value[0] : value;
  // A proxy chain lists one value per hop; the client's is the first.
  return text?.split(',')[0]?.trim() || undefined;
}

/**
 * The absolute URL a client addressed, as far as this hop can tell: the forwarded scheme and host when a proxy set them,
 * else this server's Host header. `path` is the request target (path and query).
 */
export function addressedUrl(request: { headers: Headers; path: string; encrypted?: boolean }): string {
  const scheme = first(request.headers, 'x-forwarded-proto') ?? (request.encrypted ? 'https' : 'http');
  const host = first(request.headers, 'x-forwarded-host') ?? first(request.headers, 'host') ?? 'localhost';
  return `${scheme}://${host}${request.path.startsWith('/') ? request.path : `/${request.path}`}`;
}
