import { createHmac } from 'node:crypto';
import OAuth from 'oauth-1.0a';
import { describe, expect, it } from 'vitest';
import {
  baseStringUri,
  computeSignature,
  hmacSha1Signature,
  parseOAuthHeader,
  percentDecode,
  percentEncode,
  queryPairs,
  signatureBaseString,
  signaturesMatch,
} from '../../lib/auth/oauth1/oauth1-signature.ts';

type Pairs = [string, string][];

/** Both ways of signing, which must agree with each other and with the expectation. */
function signBothWays(method: string, url: string, params: Pairs, consumerSecret: string, tokenSecret?: string) {
  return {
    whole: hmacSha1Signature(signatureBaseString(method, url, params), consumerSecret, tokenSecret),
    streamed: computeSignature({ method, url, params }, consumerSecret, tokenSecret),
  };
}

function withoutSignature(params: readonly (readonly [string, string])[]): Pairs {
  return params.filter(([name]) => name !== 'oauth_signature').map(([name, value]): [string, string] => [name, value]);
}

function parsedParams(header: string): readonly (readonly [string, string])[] {
  const parsed = parseOAuthHeader(header);
  if (!parsed.ok) throw new Error(`expected the header to parse, got: ${parsed.problem}`);
  return parsed.params;
}

describe('percentEncode / percentDecode', () => {
  it('leaves only the RFC 3986 unreserved characters literal, with upper-case hex', () => {
    expect(percentEncode('AZaz09-._~')).toBe('AZaz09-._~');
    expect(percentEncode("!*'() +/=&%:@,;$?#[]")).toBe('%21%2A%27%28%29%20%2B%2F%3D%26%25%3A%40%2C%3B%24%3F%23%5B%5D');
    expect(percentEncode('\u00ff\n')).toBe('%C3%BF%0A');
  });

  it('encodes a surrogate pair as one 4-byte UTF-8 sequence and a lone surrogate as U+FFFD', () => {
    expect(percentEncode('é😀')).toBe('%C3%A9%F0%9F%98%80');
    expect(percentEncode('a\ud83db')).toBe('a%EF%BF%BDb');
  });

  it('decodes UTF-8 escapes, leaves "+" alone, and refuses malformed escapes', () => {
    expect(percentDecode('caf%C3%A9%20%F0%9F%98%80+x')).toBe('café 😀+x');
    expect(percentDecode('%2')).toBeUndefined();
    expect(percentDecode('%ZZ')).toBeUndefined();
    expect(percentDecode('%FF')).toBeUndefined();
  });
});

describe('baseStringUri', () => {
  it('normalises the RFC 5849 §3.4.1.2 examples', () => {
    expect(baseStringUri('HTTP://EXAMPLE.COM:80/r%20v/X?id=123')).toBe('http://example.com/r%20v/X');
    expect(baseStringUri('https://www.example.net:8080/?q=1')).toBe('https://www.example.net:8080/');
  });

  it('drops only the default port of each scheme, the fragment and the query, and gives an empty path "/"', () => {
    expect(baseStringUri('https://Upload.Example.com:443/1.1/media/upload.json#top')).toBe(
      'https://upload.example.com/1.1/media/upload.json',
    );
    expect(baseStringUri('https://example.com:80/a')).toBe('https://example.com:80/a');
    expect(baseStringUri('http://example.com:443/a')).toBe('http://example.com:443/a');
    expect(baseStringUri('http://example.com')).toBe('http://example.com/');
    expect(baseStringUri('http://example.com?x=1')).toBe('http://example.com/');
  });

  it('keeps the case of the path and encodes characters that cannot travel raw', () => {
    expect(baseStringUri('http://example.com/Media/café')).toBe('http://example.com/Media/caf%C3%A9');
  });

  it('throws TypeError on a relative URL', () => {
    expect(() => baseStringUri('/1.1/media/upload.json')).toThrow(TypeError);
    expect(() => baseStringUri('example.com/x')).toThrow(TypeError);
  });
});

describe('queryPairs', () => {
  it('splits on & and the first =, turns + into a space, decodes, keeps empty names, order and repeats', () => {
    expect(queryPairs('http://example.com/p?a=1&b=x=y&flag&=v&sp+ace=a+b%2Bc&a=%F0%9F%98%80&&c%40=#frag')).toEqual([
      ['a', '1'],
      ['b', 'x=y'],
      ['flag', ''],
      ['', 'v'],
      ['sp ace', 'a b+c'],
      ['a', '😀'],
      ['c@', ''],
    ]);
  });

  it('reads relative URLs, and finds nothing without a query or when the "?" is in the fragment', () => {
    expect(queryPairs('/1.1/media/upload.json?command=STATUS&media_id=123')).toEqual([
      ['command', 'STATUS'],
      ['media_id', '123'],
    ]);
    expect(queryPairs('?%3Fq=1')).toEqual([['?q', '1']]);
    expect(queryPairs('/p??q=1')).toEqual([['?q', '1']]);
    expect(queryPairs('http://example.com/p')).toEqual([]);
    expect(queryPairs('http://example.com/p#a?b=c')).toEqual([]);
  });
});

describe('RFC 5849 §3.4.1.1 example', () => {
  const url = 'http://example.com/request?b5=%3D%253D&a3=a&c%40=&a2=r%20b';
  const header =
    'OAuth realm="Example", oauth_consumer_key="9djdj82h48djs9d2", oauth_token="kkk9d7dh3k39sjv7", ' +
    'oauth_signature_method="HMAC-SHA1", oauth_timestamp="137131201", oauth_nonce="7d8f3e4a", ' +
    'oauth_signature="bYT5CMsGcbgUdFHObYMEfcx6bsw%3D"';
  const body = 'c2&a3=2+q';

  const queryParams = queryPairs(url);
  const bodyParams = queryPairs(`?${body}`);
  const params = [...withoutSignature(parsedParams(header)), ...queryParams, ...bodyParams];

  it('reads the query and body as the §3.4.1.3.1 table does', () => {
    expect(queryParams).toEqual([
      ['b5', '=%3D'],
      ['a3', 'a'],
      ['c@', ''],
      ['a2', 'r b'],
    ]);
    expect(bodyParams).toEqual([
      ['c2', ''],
      ['a3', '2 q'],
    ]);
  });

  it('builds the base string printed in the RFC', () => {
    expect(signatureBaseString('POST', url, params)).toBe(
      'POST&http%3A%2F%2Fexample.com%2Frequest&a2%3Dr%2520b%26a3%3D2%2520q' +
        '%26a3%3Da%26b5%3D%253D%25253D%26c%2540%3D%26c2%3D%26oauth_consumer_' +
        'key%3D9djdj82h48djs9d2%26oauth_nonce%3D7d8f3e4a%26oauth_signature_m' +
        'ethod%3DHMAC-SHA1%26oauth_timestamp%3D137131201%26oauth_token%3Dkkk' +
        '9d7dh3k39sjv7',
    );
  });

  it('normalises the parameters as §3.4.1.3.2 prints them', () => {
    const encodedParameters = signatureBaseString('POST', url, params).split('&')[2]!;
    expect(percentDecode(encodedParameters)).toBe(
      'a2=r%20b&a3=2%20q&a3=a&b5=%3D%253D&c%40=&c2=&oauth_consumer_key=9dj' +
        'dj82h48djs9d2&oauth_nonce=7d8f3e4a&oauth_signature_method=HMAC-SHA1' +
        '&oauth_timestamp=137131201&oauth_token=kkk9d7dh3k39sjv7',
    );
  });

  it('upper-cases the method', () => {
    expect(signatureBaseString('post', url, params)).toBe(signatureBaseString('POST', url, params));
    expect(signatureBaseString('post', url, params).startsWith('POST&')).toBe(true);
  });
});

/*
 * The signed request of the photo example, as printed in OAuth Core 1.0 Appendix A.5 (RFC 5849 §1.2 walks through the
 * same exchange with other nonces and timestamps).
 */
describe('photos.example.net example: GET /photos?file=vacation.jpg&size=original', () => {
  const url = 'http://photos.example.net/photos?file=vacation.jpg&size=original';
  const header =
    'OAuth realm="http://photos.example.net/", oauth_consumer_key="dpf43f3p2l4k3l03", ' +
    'oauth_token="nnch734d00sl2jdk", oauth_signature_method="HMAC-SHA1", ' +
    'oauth_signature="tR3%2BTy81lMeYAr%2FFid0kMTYa%2FWM%3D", oauth_timestamp="1191242096", ' +
    'oauth_nonce="kllo9940pd9333jh", oauth_version="1.0"';
  const consumerSecret = 'kd94hf93k423kf44';
  const tokenSecret = 'pfkkdhi9sl3r4s00';

  const headerParams = parsedParams(header);
  const params = [...withoutSignature(headerParams), ...queryPairs(url)];

  it('builds the printed base string', () => {
    expect(signatureBaseString('GET', url, params)).toBe(
      'GET&http%3A%2F%2Fphotos.example.net%2Fphotos&file%3Dvacation.jpg%26oauth_consumer_key%3Ddpf43f3p2l4k3l03' +
        '%26oauth_nonce%3Dkllo9940pd9333jh%26oauth_signature_method%3DHMAC-SHA1%26oauth_timestamp%3D1191242096' +
        '%26oauth_token%3Dnnch734d00sl2jdk%26oauth_version%3D1.0%26size%3Doriginal',
    );
  });

  it('computes tR3+Ty81lMeYAr/Fid0kMTYa/WM= both ways', () => {
    expect(signBothWays('GET', url, params, consumerSecret, tokenSecret)).toEqual({
      whole: 'tR3+Ty81lMeYAr/Fid0kMTYa/WM=',
      streamed: 'tR3+Ty81lMeYAr/Fid0kMTYa/WM=',
    });
  });

  it('decodes the header signature to the computed one, so the request verifies', () => {
    const presented = headerParams.find(([name]) => name === 'oauth_signature')?.[1];
    expect(presented).toBe('tR3+Ty81lMeYAr/Fid0kMTYa/WM=');
    expect(signaturesMatch(presented!, computeSignature({ method: 'GET', url, params }, consumerSecret, tokenSecret))).toBe(true);
  });

  it('does not verify with the wrong token secret or without the token secret', () => {
    expect(computeSignature({ method: 'GET', url, params }, consumerSecret, 'pfkkdhi9sl3r4s01')).not.toBe('tR3+Ty81lMeYAr/Fid0kMTYa/WM=');
    expect(computeSignature({ method: 'GET', url, params }, consumerSecret, undefined)).not.toBe('tR3+Ty81lMeYAr/Fid0kMTYa/WM=');
  });
});

/*
 * oauth-1.0a (2.2.6) as an independent signer. It departs from RFC 5849 in how it reads the URL, so it is never given a
 * URL that exercises those departures; our side keeps the RFC behaviour:
 *  - getBaseUrl is url.split('?')[0]: scheme and host keep their case, default ports (:80, :443) and a fragment stay.
 *    It is given the base string URI written out by hand, and our baseStringUri must produce that same text.
 *  - deParam (query parsing) does not decode names, keeps "+" literal instead of a space, truncates a value at a second
 *    "=" (`b=x=y` reads as "x"), throws on a malformed escape, and drops a repeated name's first value when it is empty
 *    (`d=&d=2` reads as ["2"]); a query name also replaces a body parameter of the same name. So query parameters are
 *    written out decoded by hand and given to it as `data`, merged with the body (repeats as arrays), and our queryPairs
 *    must read the same pairs from the URL.
 *  - the method is upper-cased but not percent-encoded (RFC 5849 §3.4.1.1 wants a custom method encoded); only the
 *    standard methods are used here.
 */
interface SignerCase {
  name: string;
  method: string;
  /** The URL as the client addressed it. */
  url: string;
  /** Its §3.4.1.2 base string URI, by hand. */
  baseUri: string;
  /** Its query, decoded by hand. */
  query: Pairs;
  /** urlencoded body parameters, decoded. */
  body?: Pairs;
  consumer: { key: string; secret: string };
  token?: { key: string; secret: string };
}

const CONSUMER = { key: 'xvz1evFS4wEEPTGEFPHBog', secret: 'kAcSOqF21Fu85e7zjz7ZN2U4ZRhfV3WpwPAoE3Z7kBw' };
const TOKEN = {
  key: '370773112-GmHxMAgYyLbNEtIKZeRNFsMKPR9EyMZeS9weJAEb',
  secret: 'LswwdoUaIvS8ltyTt5jkRh4J50vUPVVHtR2YPi5kE',
};

/** 786,433 bytes of a fixed pseudo-random pattern: 1,048,580 base64 characters with "+", "/" and "=" among them. */
function bigMediaData(): string {
  const bytes = Buffer.alloc(786_433);
  let state = 0x2545f491;
  for (let i = 0; i < bytes.length; i++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes.toString('base64');
}
const MEDIA_DATA = bigMediaData();

const SIGNER_CASES: SignerCase[] = [
  {
    name: 'query values with reserved characters',
    method: 'POST',
    url: "https://api.example.com/1.1/statuses/update.json?status=Hello%20Ladies%20%2B%20Gentlemen%2C%20a%20signed%20OAuth%20request%21&include_entities=true&q=a%26b%3Dc%2Fd%3F%23%5B%5D%40!%24'()*%2C%3B%25",
    baseUri: 'https://api.example.com/1.1/statuses/update.json',
    query: [
      ['status', 'Hello Ladies + Gentlemen, a signed OAuth request!'],
      ['include_entities', 'true'],
      ['q', "a&b=c/d?#[]@!$'()*,;%"],
    ],
    consumer: CONSUMER,
    token: TOKEN,
  },
  {
    name: 'unicode in the path, names and values',
    method: 'GET',
    url: 'http://example.com/caf%C3%A9/photos?name=caf%C3%A9&emoji=%F0%9F%98%80&%F0%9F%98%80=smile&mixed=%C3%A9t%C3%A9%20%F0%9F%98%80',
    baseUri: 'http://example.com/caf%C3%A9/photos',
    query: [
      ['name', 'café'],
      ['emoji', '😀'],
      ['😀', 'smile'],
      ['mixed', 'été 😀'],
    ],
    body: [['légende', 'Noël 😀🎄']],
    consumer: CONSUMER,
    token: TOKEN,
  },
  {
    name: 'repeated names, in the query and across query and body',
    method: 'POST',
    url: 'https://api.example.com/1.1/media/upload.json?a=2&a=1&a=10&b=x&b=&a=',
    baseUri: 'https://api.example.com/1.1/media/upload.json',
    query: [
      ['a', '2'],
      ['a', '1'],
      ['a', '10'],
      ['b', 'x'],
      ['b', ''],
      ['a', ''],
    ],
    body: [
      ['a', '3'],
      ['additional_owners', '1'],
      ['additional_owners', '12'],
    ],
    consumer: CONSUMER,
    token: TOKEN,
  },
  {
    name: 'empty values, a pair without "=" and an empty name',
    method: 'GET',
    url: 'http://example.com/p?flag&empty=&=novalue&z=last',
    baseUri: 'http://example.com/p',
    query: [
      ['flag', ''],
      ['empty', ''],
      ['', 'novalue'],
      ['z', 'last'],
    ],
    body: [['note', '']],
    consumer: CONSUMER,
    token: TOKEN,
  },
  {
    name: '"+" and spaces',
    method: 'POST',
    url: 'https://api.example.com/search?q=a+b%20c%2Bd&sp+ace=1+%2B+1',
    baseUri: 'https://api.example.com/search',
    query: [
      ['q', 'a b c+d'],
      ['sp ace', '1 + 1'],
    ],
    body: [['text', 'a b+c  d ']],
    consumer: CONSUMER,
    token: TOKEN,
  },
  {
    name: 'an urlencoded upload carrying ~1 MB of base64 in media_data',
    method: 'POST',
    url: 'https://upload.example.com/1.1/media/upload.json?media_category=tweet_image',
    baseUri: 'https://upload.example.com/1.1/media/upload.json',
    query: [['media_category', 'tweet_image']],
    body: [
      ['media_data', MEDIA_DATA],
      ['additional_owners', '783214,6253282'],
    ],
    consumer: CONSUMER,
    token: TOKEN,
  },
  {
    name: 'the default port 80 of http, written out',
    method: 'GET',
    url: 'http://example.com:80/photos?size=original',
    baseUri: 'http://example.com/photos',
    query: [['size', 'original']],
    consumer: CONSUMER,
    token: TOKEN,
  },
  {
    name: 'the default port 443 of https, written out',
    method: 'POST',
    url: 'https://upload.example.com:443/1.1/media/upload.json',
    baseUri: 'https://upload.example.com/1.1/media/upload.json',
    query: [],
    body: [['media_category', 'tweet_image']],
    consumer: CONSUMER,
    token: TOKEN,
  },
  {
    name: 'port 8080 and an upper-case scheme and host',
    method: 'post',
    url: 'HTTP://Upload.EXAMPLE.com:8080/1.1/Media/Upload.json?Command=STATUS&media_id=1146654567674912769',
    baseUri: 'http://upload.example.com:8080/1.1/Media/Upload.json',
    query: [
      ['Command', 'STATUS'],
      ['media_id', '1146654567674912769'],
    ],
    consumer: CONSUMER,
    token: TOKEN,
  },
  {
    name: 'no token, secrets with reserved characters',
    method: 'GET',
    url: 'https://api.example.com:8443/oauth/request_token?x_auth_access_type=write',
    baseUri: 'https://api.example.com:8443/oauth/request_token',
    query: [['x_auth_access_type', 'write']],
    consumer: { key: 'consumer key', secret: 'sec&ret+/é' },
  },
];

/** oauth-1.0a's `data`: one property per name, an array for a repeated name. */
function asSignerData(pairs: Pairs): Record<string, string | string[]> {
  const data: Record<string, string | string[]> = {};
  for (const [name, value] of pairs) {
    const existing = data[name];
    if (existing === undefined) data[name] = value;
    else if (Array.isArray(existing)) existing.push(value);
    else data[name] = [existing, value];
  }
  return data;
}

/** Signs with oauth-1.0a and returns its base string, its signature and the oauth_* parameters it signed. */
function signWithOAuth10a(c: SignerCase) {
  let baseString = '';
  const signer = new OAuth({
    consumer: c.consumer,
    signature_method: 'HMAC-SHA1',
    hash_function(base, key) {
      baseString = base;
      return createHmac('sha1', key).update(base).digest('base64');
    },
  });
  signer.getNonce = () => 'kYjzVBB8Y0ZFabxSWbWovY3uYSQ2pTgmZeNu2VS4cg';
  signer.getTimeStamp = () => 1318622958;
  const authorization = signer.authorize(
    { method: c.method, url: c.baseUri, data: asSignerData([...c.query, ...(c.body ?? [])]) },
    c.token,
  );
  // authorize() merges the request's data into the object it returns; only the protocol parameters go in the header.
  const oauthParams = Object.entries(authorization)
    .filter(([name]) => name.startsWith('oauth_') && name !== 'oauth_signature')
    .map(([name, value]): [string, string] => [name, String(value)]);
  return { baseString, signature: authorization.oauth_signature, oauthParams };
}

describe('agreement with oauth-1.0a as an independent signer', () => {
  it('the ~1 MB media_data has "+", "/" and "=" to encode', () => {
    expect(MEDIA_DATA.length).toBe(1_048_580);
    expect(MEDIA_DATA).toMatch(/\+/);
    expect(MEDIA_DATA).toMatch(/\//);
    expect(MEDIA_DATA.endsWith('=')).toBe(true);
  });

  it.each(SIGNER_CASES.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(baseStringUri(c.url)).toBe(c.baseUri);
    expect(queryPairs(c.url)).toEqual(c.query);

    const signed = signWithOAuth10a(c);
    const params: Pairs = [...signed.oauthParams, ...queryPairs(c.url), ...(c.body ?? [])];
    expect(signatureBaseString(c.method, c.url, params)).toBe(signed.baseString);
    expect(signBothWays(c.method, c.url, params, c.consumer.secret, c.token?.secret)).toEqual({
      whole: signed.signature,
      streamed: signed.signature,
    });
  });

  it('reads a plain URL (lower-case, no default port, nothing oauth-1.0a misreads) the same way when it parses the query itself', () => {
    const c: SignerCase = {
      name: 'plain',
      method: 'GET',
      url: 'https://api.example.com/1.1/media/upload.json?command=STATUS&media_id=710511363345354753&note=caf%C3%A9%20%21',
      baseUri: 'https://api.example.com/1.1/media/upload.json',
      query: [],
      consumer: CONSUMER,
      token: TOKEN,
    };
    const signed = signWithOAuth10a({ ...c, baseUri: c.url });
    const params: Pairs = [...signed.oauthParams, ...queryPairs(c.url)];
    expect(computeSignature({ method: c.method, url: c.url, params }, c.consumer.secret, c.token?.secret)).toBe(signed.signature);
  });
});

describe('computeSignature matches the whole base string on awkward inputs', () => {
  it('agrees when values cross the update slices and names tie', () => {
    const long = `${'%+/='.repeat(40_000)}é😀`;
    const params: Pairs = [
      ['media_data', long],
      ['media_data', `${long}x`],
      ['oauth_consumer_key', 'k'],
      ['', ''],
    ];
    const url = 'https://example.com:8443/x?y=1';
    const { whole, streamed } = signBothWays('POST', url, params, 'cs', 'ts');
    expect(streamed).toBe(whole);
    expect(computeSignature({ method: 'POST', url, params: [...params].reverse() }, 'cs', 'ts')).toBe(whole);
  });

  it('sorts by encoded bytes, not by locale or by the decoded text', () => {
    // Decoded, "é" would sort last; encoded it is "%C3%A9", first. "%" < "-" < "B" orders the three "a" names.
    const base = signatureBaseString('GET', 'http://example.com/', [
      ['a', '1'],
      ['é', '1'],
      ['Z', '1'],
      ['aB', '1'],
      ['a-b', '1'],
      ['a b', '1'],
    ]);
    expect(percentDecode(base.split('&')[2]!)).toBe('%C3%A9=1&Z=1&a=1&a%20b=1&a-b=1&aB=1');
  });
});

describe('parseOAuthHeader: tolerance', () => {
  const expected = [
    ['oauth_consumer_key', 'key'],
    ['oauth_nonce', 'n o+nce'],
    ['oauth_signature', 'sig/+='],
  ];

  it('reads a header without spaces after the commas', () => {
    expect(parseOAuthHeader('OAuth oauth_consumer_key="key",oauth_nonce="n%20o%2Bnce",oauth_signature="sig%2F%2B%3D"')).toEqual({
      ok: true,
      params: expected,
    });
  });

  it('reads a header with extra spaces, tabs and commas, and an upper-case scheme', () => {
    expect(
      parseOAuthHeader('  OAUTH \t oauth_consumer_key = "key" ,  ,oauth_nonce="n%20o%2Bnce"\t,   oauth_signature="sig%2F%2B%3D" , '),
    ).toEqual({ ok: true, params: expected });
    expect(parseOAuthHeader('oauth oauth_consumer_key="key"')).toEqual({ ok: true, params: [['oauth_consumer_key', 'key']] });
  });

  it('drops realm, even when it is not percent-encoded', () => {
    expect(parseOAuthHeader('OAuth realm="http://sp.example.com/ 100%", oauth_consumer_key="key"')).toEqual({
      ok: true,
      params: [['oauth_consumer_key', 'key']],
    });
  });

  it('keeps header order with oauth_signature first, and keeps oauth_body_hash and oauth_version', () => {
    expect(
      parseOAuthHeader(
        'OAuth oauth_signature="tR3%2BTy81lMeYAr%2FFid0kMTYa%2FWM%3D", oauth_body_hash="2jmj7l5rSw0yVb%2FvlWAYkK%2FYBwk%3D", oauth_version="1.0", oauth_token=""',
      ),
    ).toEqual({
      ok: true,
      params: [
        ['oauth_signature', 'tR3+Ty81lMeYAr/Fid0kMTYa/WM='],
        ['oauth_body_hash', '2jmj7l5rSw0yVb/vlWAYkK/YBwk='],
        ['oauth_version', '1.0'],
        ['oauth_token', ''],
      ],
    });
  });

  it('decodes names, unicode values and quoted-pair escapes', () => {
    expect(parseOAuthHeader('OAuth oauth_%6Eonce="caf%C3%A9%F0%9F%98%80", x_extra="a\\"b"')).toEqual({
      ok: true,
      params: [
        ['oauth_nonce', 'café😀'],
        ['x_extra', 'a"b'],
      ],
    });
  });
});

describe('parseOAuthHeader: refusals', () => {
  function problemOf(header: string): string {
    const parsed = parseOAuthHeader(header);
    if (parsed.ok) throw new Error(`expected a refusal, got ${JSON.stringify(parsed.params)}`);
    return parsed.problem;
  }

  it('refuses a duplicated oauth_nonce, also when one copy is percent-encoded', () => {
    expect(problemOf('OAuth oauth_nonce="a", oauth_consumer_key="k", oauth_nonce="b"')).toBe('duplicate OAuth parameter oauth_nonce');
    expect(problemOf('OAuth oauth_nonce="a", oauth_%6Eonce="a"')).toBe('duplicate OAuth parameter oauth_nonce');
  });

  it('keeps a repeated parameter that is not an oauth_ one', () => {
    expect(parseOAuthHeader('OAuth x="1", x="2"')).toEqual({
      ok: true,
      params: [
        ['x', '1'],
        ['x', '2'],
      ],
    });
  });

  it('refuses unquoted, unterminated and missing values', () => {
    expect(problemOf('OAuth oauth_consumer_key=key, oauth_nonce="n"')).toBe('the value of oauth_consumer_key is not quoted');
    expect(problemOf('OAuth oauth_consumer_key="key, oauth_nonce="n')).toBe('no separator after the value of oauth_consumer_key');
    expect(problemOf('OAuth oauth_consumer_key="key", oauth_nonce="n')).toBe('the value of oauth_nonce is not terminated');
    expect(problemOf('OAuth oauth_consumer_key, oauth_nonce="n"')).toBe('parameter oauth_consumer_key has no value');
  });

  it('refuses malformed escapes in values and names', () => {
    expect(problemOf('OAuth oauth_signature="abc%2"')).toBe('malformed percent-encoding in the value of oauth_signature');
    expect(problemOf('OAuth oauth_signature="abc%ZZdef"')).toBe('malformed percent-encoding in the value of oauth_signature');
    expect(problemOf('OAuth oauth_%ZZ="1"')).toBe('malformed percent-encoding in parameter name oauth_%ZZ');
  });

  it('refuses another scheme, a scheme without its separating space, and junk between parameters', () => {
    expect(problemOf('Bearer AAAAAAAAAAAAAAAAAAAAA')).toBe('the Authorization header does not use the OAuth scheme');
    expect(problemOf('OAuth2 oauth_consumer_key="key"')).toBe('the Authorization header does not use the OAuth scheme');
    expect(problemOf('OAuth oauth_consumer_key="key" ; oauth_nonce="n"')).toBe('unexpected character at position 31 of the OAuth header');
  });
});

describe('signaturesMatch', () => {
  it('is true for the same signature', () => {
    expect(signaturesMatch('tR3+Ty81lMeYAr/Fid0kMTYa/WM=', 'tR3+Ty81lMeYAr/Fid0kMTYa/WM=')).toBe(true);
  });

  it('is false when one character differs', () => {
    expect(signaturesMatch('tR3+Ty81lMeYAr/Fid0kMTYa/WN=', 'tR3+Ty81lMeYAr/Fid0kMTYa/WM=')).toBe(false);
  });

  it('is false on a length mismatch, including a still-encoded presented signature', () => {
    expect(signaturesMatch('tR3+Ty81lMeYAr/Fid0kMTYa/WM', 'tR3+Ty81lMeYAr/Fid0kMTYa/WM=')).toBe(false);
    expect(signaturesMatch('tR3%2BTy81lMeYAr%2FFid0kMTYa%2FWM%3D', 'tR3+Ty81lMeYAr/Fid0kMTYa/WM=')).toBe(false);
    expect(signaturesMatch('', 'tR3+Ty81lMeYAr/Fid0kMTYa/WM=')).toBe(false);
  });
});
