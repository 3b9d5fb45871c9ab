import { describe, expect, it } from 'vitest';
import {
  type AddressClass,
  type CallbackClientOptions,
  type CallbackLookup,
  classifyAddress,
  createCallbackClient,
  type ResolvedAddress,
} from '../../lib/http/callback-client.ts';

/**
 * The callback client's URL check (issue 26, item 4): every range a webhook may not reach, in IPv4, IPv6 and the IPv6
 * forms that carry an IPv4 address, through an injected lookup (no DNS, no connection).
 */

/** A lookup answering `addresses` for every name, counting its calls. */
function answering(...addresses: string[]): CallbackLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string): Promise<readonly ResolvedAddress[]> => {
    calls.push(hostname);
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

function failing(code: string): CallbackLookup {
  return async (hostname) => {
    throw Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), { code });
  };
}

function client(overrides: Partial<CallbackClientOptions> = {}) {
  return createCallbackClient({
    allowPrivate: false,
    requireHttps: false,
    connectTimeoutMs: 1_000,
    responseTimeoutMs: 1_000,
    maxResponseBytes: 1_024,
    ...overrides,
  });
}

/** Each address and its class; the public ones sit at the edges of the ranges around them. */
const ADDRESSES: ReadonlyArray<readonly [string, AddressClass]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['192.168.255.255', 'private'],
  ['fc00::1', 'private'],
  ['fd12:3456:789a::1', 'private'],
  ['fec0::1', 'private'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:c0a8:101', 'private'],
  ['169.254.0.1', 'link_local'],
  ['169.254.255.255', 'link_local'],
  ['fe80::1', 'link_local'],
  ['fe80::1%eth0', 'link_local'],
  ['febf:ffff::1', 'link_local'],
  ['::ffff:169.254.10.10', 'link_local'],
  ['0.0.0.0', 'unspecified'],
  ['::', 'unspecified'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'reserved'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['::ffff:100.64.0.1', 'cgnat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['::ffff:224.0.0.251', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  ['192.0.0.192', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.9', 'reserved'],
  ['2001:db8::1', 'reserved'],
  ['2001::1', 'reserved'],
  ['100::1', 'reserved'],
  ['::127.0.0.1', 'reserved'],
  ['64:ff9b:1::1', 'reserved'],
  ['169.254.169.254', 'metadata'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:a9fe:a9fe', 'metadata'],
  ['fd00:ec2::254', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['2002:7f00:1::1', 'loopback'],
  ['2002:c0a8:101::', 'private'],
  ['8.8.8.8', 'public'],
  ['1.1.1.1', 'public'],
  ['93.184.215.14', 'public'],
  ['9.255.255.255', 'public'],
  ['11.0.0.0', 'public'],
  ['100.63.255.255', 'public'],
  ['100.128.0.0', 'public'],
  ['126.255.255.255', 'public'],
  ['128.0.0.0', 'public'],
  ['169.253.255.255', 'public'],
  ['172.15.255.255', 'public'],
  ['172.32.0.0', 'public'],
  ['192.167.255.255', 'public'],
  ['192.169.0.0', 'public'],
  ['223.255.255.255', 'public'],
  ['::ffff:8.8.8.8', 'public'],
  ['64:ff9b::808:808', 'public'],
  ['2002:808:808::1', 'public'],
  ['2606:4700:4700::1111', 'public'],
  ['2a00:1450:4001:81c::200e', 'public'],
  ['fbff:ffff::1', 'reserved'],
];

/** The words a refusal uses for each class. */
const WORDS: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'loopback',
  private: 'private-network',
  link_local: 'link-local',
  unspecified: 'unspecified',
  cgnat: 'carrier-grade NAT',
  multicast: 'multicast',
  reserved: 'reserved or special-purpose',
  metadata: 'cloud metadata',
};

describe('address classification', () => {
  it.each(ADDRESSES)('classifies %s as %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('answers undefined for what is no IP address', () => {
    for (const text of ['', 'localhost', '1.2.3', '1.2.3.4.5', '256.0.0.1', '::g', '1::2::3', 'example.com']) {
      expect(classifyAddress(text), text).toBeUndefined();
    }
  });
});

describe("the callback client's check", () => {
  const forbidden = ADDRESSES.flatMap(([address, kind]) => (kind === 'public' ? [] : [[address, kind] as const]));
  it.each(forbidden)('refuses a name resolving to %s (%s)', async (address, kind) => {
    const checked = await client({ lookup: answering(address) }).check('https://hooks.example.com/events');
    expect(checked).toMatchObject({ ok: false, reason: 'forbidden_address' });
    if (checked.ok) return;
    expect(checked.message).toMatch(/^the host name resolves to (a|the) .+ address, which callbacks may not reach$/);
    expect(checked.message).toContain(WORDS[kind]);
    // The developer learns the kind of address, not the address (which may be one of ours).
    expect(checked.message).not.toContain(address);
  });

  it.each(ADDRESSES.filter(([, kind]) => kind === 'public'))('accepts a name resolving to %s', async (address) => {
    const checked = await client({ lookup: answering(address) }).check('https://hooks.example.com/events');
    expect(checked.ok).toBe(true);
    if (checked.ok) {
      expect(checked.url.href).toBe('https://hooks.example.com/events');
      expect(checked.addresses).toEqual([{ address, family: address.includes(':') ? 6 : 4 }]);
    }
  });

  it('refuses a name when any one of its addresses is forbidden, IPv4 or IPv6', async () => {
    for (const addresses of [
      ['8.8.8.8', '10.0.0.1'],
      ['2606:4700:4700::1111', '::1'],
      ['8.8.8.8', '2606:4700:4700::1111', 'fe80::1'],
      ['::ffff:127.0.0.1', '8.8.8.8'],
    ]) {
      const checked = await client({ lookup: answering(...addresses) }).check('https://hooks.example.com/');
      expect(checked, addresses.join(' ')).toMatchObject({ ok: false, reason: 'forbidden_address' });
    }
    const both = await client({ lookup: answering('8.8.8.8', '2606:4700:4700::1111') }).check('https://hooks.example.com/');
    expect(both).toMatchObject({
      ok: true,
      addresses: [
        { address: '8.8.8.8', family: 4 },
        { address: '2606:4700:4700::1111', family: 6 },
      ],
    });
  });

  it('takes the family from the address, not from what the lookup said', async () => {
    const lookup: CallbackLookup = async () => [{ address: '2606:4700:4700::1111', family: 4 }];
    expect(await client({ lookup }).check('https://hooks.example.com/')).toMatchObject({
      ok: true,
      addresses: [{ address: '2606:4700:4700::1111', family: 6 }],
    });
  });

  it('checks an IP literal without a lookup, in whatever form the URL writes it', async () => {
    const lookup = answering('8.8.8.8');
    const check = client({ lookup });
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://[::1]/hook',
      'http://[::ffff:127.0.0.1]/hook',
      'http://0x7f.1/hook',
      'http://2130706433/hook',
      'http://017700000001/hook',
      'http://10.1/hook',
      'http://[fe80::1]/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/',
      'http://0.0.0.0:3000/',
    ]) {
      const checked = await check.check(url);
      expect(checked, url).toMatchObject({ ok: false, reason: 'forbidden_address' });
      if (!checked.ok) expect(checked.message, url).toMatch(/^the host is /);
    }
    expect(await check.check('https://8.8.8.8/hook')).toMatchObject({ ok: true, addresses: [{ address: '8.8.8.8', family: 4 }] });
    expect(await check.check('https://[2606:4700:4700::1111]:8443/hook')).toMatchObject({
      ok: true,
      addresses: [{ address: '2606:4700:4700::1111', family: 6 }],
    });
    expect(lookup.calls).toEqual([]);
  });

  it('refuses the metadata service by name, before any lookup', async () => {
    const lookup = answering('8.8.8.8');
    for (const url of [
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://METADATA.google.internal./',
      'https://metadata.google.internal:443/',
    ]) {
      expect(await client({ lookup, allowPrivate: true }).check(url), url).toEqual({
        ok: false,
        reason: 'forbidden_address',
        message: 'the host is a cloud metadata service address, which callbacks may not reach',
      });
    }
    expect(lookup.calls).toEqual([]);
  });

  it('allows private, loopback, link-local and the other non-public classes with allowPrivate, but never metadata', async () => {
    for (const [address, kind] of ADDRESSES) {
      const checked = await client({ allowPrivate: true, lookup: answering(address) }).check('http://hooks.example.com/');
      expect(checked.ok, `${address} (${kind})`).toBe(kind !== 'metadata');
    }
    expect(await client({ allowPrivate: true }).check('http://127.0.0.1:3000/')).toMatchObject({ ok: true });
    expect(await client({ allowPrivate: true }).check('http://169.254.169.254/')).toMatchObject({ ok: false, reason: 'forbidden_address' });
  });

  it('allows a host named in allowedHosts whatever it resolves to, and only that host', async () => {
    const local = client({
      allowedHosts: ['127.0.0.1', '::1', 'Hooks.Internal.', 'metadata.google.internal'],
      lookup: answering('10.0.0.5'),
    });
    expect(await local.check('http://127.0.0.1:4000/hook')).toMatchObject({ ok: true, addresses: [{ address: '127.0.0.1', family: 4 }] });
    expect(await local.check('http://[::1]:4000/hook')).toMatchObject({ ok: true, addresses: [{ address: '::1', family: 6 }] });
    expect(await local.check('http://hooks.internal/hook')).toMatchObject({ ok: true, addresses: [{ address: '10.0.0.5', family: 4 }] });
    expect(await local.check('http://metadata.google.internal/')).toMatchObject({ ok: true });
    // An allowed IP literal does not allow a name that resolves to it.
    const rebound = client({ allowedHosts: ['127.0.0.1'], lookup: answering('127.0.0.1') });
    expect(await rebound.check('http://localtest.me:4000/hook')).toMatchObject({ ok: false, reason: 'forbidden_address' });
    // Nor another address of the same kind.
    expect(await rebound.check('http://127.0.0.2:4000/hook')).toMatchObject({ ok: false, reason: 'forbidden_address' });
    // Entries are matched in the form the URL parser gives a host.
    expect(await client({ allowedHosts: ['0:0::1', '127.1'] }).check('http://[::1]/')).toMatchObject({ ok: true });
    expect(await client({ allowedHosts: ['0:0::1', '127.1'] }).check('http://127.0.0.1/')).toMatchObject({ ok: true });
  });

  it('refuses what is not an http(s) URL without credentials', async () => {
    const lookup = answering('8.8.8.8');
    const cases: ReadonlyArray<readonly [string, string]> = [
      ['not a url', 'the URL is not a valid absolute URL'],
      ['/relative/hook', 'the URL is not a valid absolute URL'],
      ['ftp://hooks.example.com/', 'the URL must use https: or http:'],
      ['file:///etc/passwd', 'the URL must use https: or http:'],
      ['javascript:alert(1)', 'the URL must use https: or http:'],
      ['gopher://127.0.0.1:6379/_INFO', 'the URL must use https: or http:'],
      ['https://user:secret@hooks.example.com/', 'the URL must not contain a user name or password'],
      ['https://user@hooks.example.com/', 'the URL must not contain a user name or password'],
      [`https://hooks.example.com/${'a'.repeat(2048)}`, 'the URL is longer than 2048 characters'],
    ];
    for (const [url, message] of cases) {
      expect(await client({ lookup }).check(url), url).toEqual({ ok: false, reason: 'invalid_url', message });
    }
    expect(lookup.calls).toEqual([]);
    expect(await client({ lookup }).check('https://hooks.example.com:8443/events?app=1')).toMatchObject({ ok: true });
  });

  it('refuses http: when https is required', async () => {
    const lookup = answering('8.8.8.8');
    const production = client({ requireHttps: true, lookup });
    expect(await production.check('http://hooks.example.com/')).toEqual({
      ok: false,
      reason: 'https_required',
      message: 'the URL must use https:',
    });
    expect(await production.check('https://hooks.example.com/')).toMatchObject({ ok: true });
    expect(await client({ requireHttps: false, lookup }).check('http://hooks.example.com/')).toMatchObject({ ok: true });
  });

  it('calls a name that does not resolve, or not in time, unresolvable', async () => {
    expect(await client({ lookup: failing('ENOTFOUND') }).check('https://nowhere.example/')).toEqual({
      ok: false,
      reason: 'unresolvable',
      message: 'the host name does not resolve',
    });
    expect(await client({ lookup: answering() }).check('https://nowhere.example/')).toMatchObject({ ok: false, reason: 'unresolvable' });
    expect(await client({ lookup: failing('EAI_AGAIN') }).check('https://nowhere.example/')).toEqual({
      ok: false,
      reason: 'unresolvable',
      message: 'the host name could not be resolved now (a temporary DNS failure)',
    });
    expect(await client({ lookup: answering('not-an-ip') }).check('https://odd.example/')).toMatchObject({
      ok: false,
      reason: 'unresolvable',
    });
    const hanging: CallbackLookup = () => new Promise(() => {});
    expect(await client({ lookup: hanging, responseTimeoutMs: 20 }).check('https://slow.example/')).toEqual({
      ok: false,
      reason: 'unresolvable',
      message: 'the host name did not resolve within 20 ms',
    });
    const throwing: CallbackLookup = () => {
      throw new Error('boom');
    };
    expect(await client({ lookup: throwing }).check('https://odd.example/')).toMatchObject({ ok: false, reason: 'unresolvable' });
  });

  it('refuses options that bound nothing', () => {
    expect(() => client({ connectTimeoutMs: 0 })).toThrow(RangeError);
    expect(() => client({ responseTimeoutMs: Number.NaN })).toThrow(RangeError);
    expect(() => client({ maxResponseBytes: -1 })).toThrow(RangeError);
    expect(() => client({ maxResponseBytes: 0 })).not.toThrow();
  });
});
