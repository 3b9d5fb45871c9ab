import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The pure pieces of RFC 5849 HMAC-SHA1 request signing that a server needs to verify an OAuth 1.0a request: percent
 * encoding, the Authorization header, the signature base string and the signature itself. No I/O: finding the secrets,
 * checking the timestamp window and recording nonces belong to the caller.
 */

/** RFC 3986 percent-encoding as RFC 5849 §3.6 wants it: only A-Z a-z 0-9 - . _ ~ literal, UTF-8, upper-case hex. */
export function percentEncode(value: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    // A lone surrogate has no UTF-8 form; encode U+FFFD for it, as TextEncoder (and so any client sending it) does.
    encoded = encodeURIComponent(value.replace(/\p{Cs}/gu, '\uFFFD'));
  }
  // encodeURIComponent leaves these five sub-delimiters literal; RFC 3986 unreserved does not include them.
  return encoded.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Decodes %XX (UTF-8); returns undefined for malformed escapes (and for escapes that are not valid UTF-8). */
export function percentDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

export type OAuthHeaderParse = { ok: true; params: readonly (readonly [string, string])[] } | { ok: false; problem: string };

const SCHEME = /^[ \t]*OAuth(?:[ \t]+|$)/i;
// RFC 7230 token characters: what an auth-param name may be made of.
const PARAM_NAME = /[!#$%&'*+\-.^_`|~0-9A-Za-z]+/y;
const SEPARATORS = /[ \t,]*/y;
const BWS = /[ \t]*/y;

/**
 * Parses `Authorization: OAuth k="v", k2="v2"` tolerantly: scheme case-insensitive, any whitespace/comma spacing, any
 * order, values percent-decoded, `realm` dropped; refuses duplicates of an oauth_ parameter, unquoted or unterminated
 * values, malformed escapes. Input is the whole header value including the scheme word.
 *
 * Parameters are returned decoded and in header order (realm left out, oauth_signature kept) so the caller can put
 * them straight into the base string after taking out oauth_signature.
 */
export function parseOAuthHeader(header: string): OAuthHeaderParse {
  const scheme = SCHEME.exec(header);
  if (scheme === null) return { ok: false, problem: 'the Authorization header does not use the OAuth scheme' };

  const params: [string, string][] = [];
  const seenOAuth = new Set<string>();
  let at = scheme[0].length;
  const skip = (pattern: RegExp): void => {
    pattern.lastIndex = at;
    at += pattern.exec(header)![0].length;
  };

  skip(SEPARATORS);
  while (at < header.length) {
    PARAM_NAME.lastIndex = at;
    const nameMatch = PARAM_NAME.exec(header);
    if (nameMatch === null) return { ok: false, problem: `unexpected character at position ${at} of the OAuth header` };
    const rawName = nameMatch[0];
    at += rawName.length;

    skip(BWS);
    if (header[at] !== '=') return { ok: false, problem: `parameter ${rawName} has no value` };
    at += 1;
    skip(BWS);
    if (header[at] !== '"') return { ok: false, problem: `the value of ${rawName} is not quoted` };
    at += 1;

    // RFC 7230 quoted-string: a backslash escapes the next character. Percent-encoded values never need it, but a
    // client following the HTTP grammar may still send one.
    let rawValue = '';
    let closed = false;
    while (at < header.length) {
      const c = header[at]!;
      if (c === '"') {
        closed = true;
        at += 1;
        break;
      }
      if (c === '\\' && at + 1 < header.length) {
        rawValue += header[at + 1];
        at += 2;
      } else {
        rawValue += c;
        at += 1;
      }
    }
    if (!closed) return { ok: false, problem: `the value of ${rawName} is not terminated` };

    const separatorStart = at;
    skip(SEPARATORS);
    if (at === separatorStart && at < header.length) {
      return { ok: false, problem: `no separator after the value of ${rawName}` };
    }

    // realm is not signed (§3.4.1.3.1) and is not percent-encoded by every client, so it is neither decoded nor kept;
    // auth-param names are case-insensitive in HTTP, so "Realm" is the same parameter.
    if (rawName.toLowerCase() === 'realm') continue;

    const name = percentDecode(rawName);
    if (name === undefined) return { ok: false, problem: `malformed percent-encoding in parameter name ${rawName}` };
    const value = percentDecode(rawValue);
    if (value === undefined) return { ok: false, problem: `malformed percent-encoding in the value of ${name}` };
    if (name.startsWith('oauth_')) {
      // Two values for one protocol parameter would let a signer and a verifier disagree about which one counts.
      if (seenOAuth.has(name)) return { ok: false, problem: `duplicate OAuth parameter ${name}` };
      seenOAuth.add(name);
    }
    params.push([name, value]);
  }
  return { ok: true, params };
}

const HTTP_PROTOCOLS = new Set(['http:', 'https:']);

/**
 * Base string URI (§3.4.1.2): scheme and host lower-case, default port (80 http / 443 https) dropped, path kept (empty
 * path -> "/"), no query, no fragment. Throws TypeError on a non-absolute URL, and on a scheme other than http(s) (the
 * base string is defined for HTTP requests only).
 *
 * The path is the WHATWG URL parser's: dot segments resolved and characters that cannot travel raw percent-encoded,
 * which is the path an HTTP client built on that parser (fetch, undici, browsers) put on the wire and signed.
 */
export function baseStringUri(url: string): string {
  const parsed = new URL(url);
  if (!HTTP_PROTOCOLS.has(parsed.protocol)) {
    throw new TypeError(`not an http(s) URL: ${parsed.protocol}`);
  }
  // For http(s) the WHATWG parser already lower-cases scheme and host, leaves `port` empty when it is the scheme's
  // default (80 / 443) and gives an empty path as "/".
  const port = parsed.port === '' ? '' : `:${parsed.port}`;
  return `${parsed.protocol}//${parsed.hostname}${port}${parsed.pathname}`;
}

/**
 * Query-string pairs of an absolute or relative URL as §3.4.1.3.1 reads them: split on &, then =, `+` is a space,
 * percent-decoded, empty names kept, a pair without = has value "".
 *
 * §3.4.1.3.1 defers to the application/x-www-form-urlencoded rules, whose current statement is the WHATWG parser behind
 * URLSearchParams: it also keeps a malformed escape as literal text and turns bytes that are not UTF-8 into U+FFFD
 * rather than failing, as other signers' form parsers (Python's parse_qsl, for one) do.
 */
export function queryPairs(url: string): [string, string][] {
  const hash = url.indexOf('#');
  const withoutFragment = hash === -1 ? url : url.slice(0, hash);
  const question = withoutFragment.indexOf('?');
  if (question === -1) return [];
  // URLSearchParams strips one leading "?"; keeping ours in front stops it eating a "?" that belongs to the first name.
  return [...new URLSearchParams(withoutFragment.slice(question))];
}

type EncodedPair = readonly [encodedName: string, encodedValue: string];

/** §3.4.1.3.2: encode, then sort by encoded name and then encoded value in byte order. */
function normalisedPairs(params: readonly (readonly [string, string])[]): EncodedPair[] {
  const encoded = params.map(([name, value]): EncodedPair => [percentEncode(name), percentEncode(value)]);
  // Encoded strings are ASCII, so UTF-16 code-unit comparison is byte order; localeCompare would not be.
  const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
  return encoded.sort((a, b) => compare(a[0], b[0]) || compare(a[1], b[1]));
}

/** The first two parts of the base string with their trailing "&". */
function baseStringHead(method: string, url: string): string {
  // §3.4.1.1 asks for a custom method to be encoded; for the standard methods this changes nothing.
  return `${percentEncode(method.toUpperCase())}&${percentEncode(baseStringUri(url))}&`;
}

/**
 * The signature base string (§3.4.1): METHOD (upper-case) & enc(base string URI) & enc(normalised parameters). `params`
 * are the DEcoded pairs (oauth_* without oauth_signature, query pairs, urlencoded body pairs); duplicates kept; sorted
 * by encoded name then encoded value.
 */
export function signatureBaseString(method: string, url: string, params: readonly (readonly [string, string])[]): string {
  const normalised = normalisedPairs(params)
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  return baseStringHead(method, url) + percentEncode(normalised);
}

function signingKey(consumerSecret: string, tokenSecret: string | undefined): string {
  return `${percentEncode(consumerSecret)}&${percentEncode(tokenSecret ?? '')}`;
}

/** HMAC-SHA1 signature (§3.4.2), base64: key = enc(consumerSecret) & enc(tokenSecret ?? ''). */
export function hmacSha1Signature(baseString: string, consumerSecret: string, tokenSecret: string | undefined): string {
  return createHmac('sha1', signingKey(consumerSecret, tokenSecret)).update(baseString, 'utf8').digest('base64');
}

// Large enough that a 7 MB value takes about a hundred updates, small enough that no copy of it is ever made whole.
const UPDATE_CHUNK = 64 * 1024;

/**
 * The same signature computed without building the whole base string (a urlencoded body may carry ~7 MB of base64 in
 * media_data): feeds the HMAC piece by piece. Must equal hmacSha1Signature(signatureBaseString(...)) for every input.
 */
export function computeSignature(
  request: { method: string; url: string; params: readonly (readonly [string, string])[] },
  consumerSecret: string,
  tokenSecret: string | undefined,
): string {
  const hmac = createHmac('sha1', signingKey(consumerSecret, tokenSecret));
  hmac.update(baseStringHead(request.method, request.url), 'utf8');
  const pairs = normalisedPairs(request.params);
  // Percent-encoding works character by character, so enc("n=v&n2=v2") is enc(n) %3D enc(v) %26 enc(n2) %3D enc(v2),
  // and an already-encoded (ASCII) value can be encoded a second time in slices.
  for (let i = 0; i < pairs.length; i++) {
    const [name, value] = pairs[i]!;
    hmac.update(`${i === 0 ? '' : '%26'}${percentEncode(name)}%3D`, 'utf8');
    for (let at = 0; at < value.length; at += UPDATE_CHUNK) {
      hmac.update(percentEncode(value.slice(at, at + UPDATE_CHUNK)), 'utf8');
    }
  }
  return hmac.digest('base64');
}

/** Constant-time comparison of a presented (already percent-decoded) signature with the expected one; false on length mismatch. */
export function signaturesMatch(presented: string, expected: string): boolean {
  const a = Buffer.from(presented, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  // The length of an HMAC-SHA1 signature is public (28 base64 characters), so leaving early on it reveals nothing.
  return a.length === b.length && timingSafeEqual(a, b);
}
