import { describe, expect, it } from 'vitest';
import { buildPaging, buildTimePaging, graphPage } from '../../rest-adapter/social-graph/graph-paging.ts';

const BASE = 'http://localhost:8080/v21.0/17858893269000001/replies';

describe('buildPaging', () => {
  it('links the first page forward only, repeating every parameter in order and appending after', () => {
    const requestUrl = new URL(`${BASE}?access_token=EAAB123&limit=2&fields=id,text`);
    expect(buildPaging({ requestUrl, before: 'QVFIa', after: 'QVFIb', hasPrevious: false, hasNext: true })).toStrictEqual({
      cursors: { before: 'QVFIa', after: 'QVFIb' },
      next: `${BASE}?access_token=EAAB123&limit=2&fields=id%2Ctext&after=QVFIb`,
    });
  });

  it('links a middle page both ways: next drops before, previous drops after', () => {
    const requestUrl = new URL(`${BASE}?after=OLD&access_token=EAAB123&limit=2`);
    expect(buildPaging({ requestUrl, before: 'QVFIc', after: 'QVFId', hasPrevious: true, hasNext: true })).toStrictEqual({
      cursors: { before: 'QVFIc', after: 'QVFId' },
      previous: `${BASE}?access_token=EAAB123&limit=2&before=QVFIc`,
      next: `${BASE}?access_token=EAAB123&limit=2&after=QVFId`,
    });
  });

  it('gives the last page no next', () => {
    const requestUrl = new URL(`${BASE}?access_token=EAAB123&before=X&before=Y`);
    expect(buildPaging({ requestUrl, before: 'QVFIe', after: 'QVFIf', hasPrevious: true, hasNext: false })).toStrictEqual({
      cursors: { before: 'QVFIe', after: 'QVFIf' },
      previous: `${BASE}?access_token=EAAB123&before=QVFIe`,
    });
  });

  it('gives a single page cursors only', () => {
    const requestUrl = new URL(`${BASE}?access_token=EAAB123`);
    expect(buildPaging({ requestUrl, before: 'QVFIg', after: 'QVFIg', hasPrevious: false, hasNext: false })).toStrictEqual({
      cursors: { before: 'QVFIg', after: 'QVFIg' },
    });
  });

  it('gives edges such as tags cursors but never links', () => {
    const requestUrl = new URL('http://localhost:8080/v21.0/17841400000000001/tags?access_token=EAAB123');
    expect(buildPaging({ requestUrl, before: 'a', after: 'b', hasPrevious: true, hasNext: true, cursorsOnly: true })).toStrictEqual({
      cursors: { before: 'a', after: 'b' },
    });
  });

  it('leaves out paging for an empty list with nothing before or after', () => {
    const requestUrl = new URL(`${BASE}?access_token=EAAB123`);
    expect(buildPaging({ requestUrl, hasPrevious: false, hasNext: false })).toBeUndefined();
    expect(buildPaging({ requestUrl, hasPrevious: true, hasNext: true, cursorsOnly: true })).toBeUndefined();
    expect(graphPage([], buildPaging({ requestUrl, hasPrevious: false, hasNext: false }))).toStrictEqual({ data: [] });
  });

  it('keeps paging on an empty page in the middle of a walk, with the cursors of the position reached', () => {
    const requestUrl = new URL(`${BASE}?access_token=EAAB123&after=P`);
    const paging = buildPaging({ requestUrl, before: 'P', after: 'Q', hasPrevious: true, hasNext: true });
    expect(graphPage([], paging)).toStrictEqual({
      data: [],
      paging: {
        cursors: { before: 'P', after: 'Q' },
        previous: `${BASE}?access_token=EAAB123&before=P`,
        next: `${BASE}?access_token=EAAB123&after=Q`,
      },
    });
  });

  it('gives only the cursor it has', () => {
    const requestUrl = new URL(`${BASE}?access_token=EAAB123`);
    expect(buildPaging({ requestUrl, after: 'Z', hasPrevious: false, hasNext: true })).toStrictEqual({
      cursors: { after: 'Z' },
      next: `${BASE}?access_token=EAAB123&after=Z`,
    });
  });

  it('refuses to link without the cursor the link needs', () => {
    const requestUrl = new URL(BASE);
    expect(() => buildPaging({ requestUrl, before: 'a', hasPrevious: false, hasNext: true })).toThrow('hasNext needs the after cursor');
    expect(() => buildPaging({ requestUrl, after: 'b', hasPrevious: true, hasNext: false })).toThrow('hasPrevious needs the before cursor');
  });

  it('form-encodes cursors and re-encodes the untouched parameters the way URLSearchParams writes them', () => {
    // The request as a client might send it: braces and commas raw, a space as %20, a cursor with base64 padding.
    const requestUrl = new URL(`${BASE}?fields=id,text,replies.limit(5){text,username},media{id}&access_token=EA%2BB/1&q=a%20b&pretty`);
    const paging = buildPaging({ requestUrl, before: 'QV+F/I=', after: 'a&b=c', hasPrevious: true, hasNext: true });
    const query = 'fields=id%2Ctext%2Creplies.limit%285%29%7Btext%2Cusername%7D%2Cmedia%7Bid%7D&access_token=EA%2BB%2F1&q=a+b&pretty=';
    expect(paging).toStrictEqual({
      cursors: { before: 'QV+F/I=', after: 'a&b=c' },
      previous: `${BASE}?${query}&before=QV%2BF%2FI%3D`,
      next: `${BASE}?${query}&after=a%26b%3Dc`,
    });
    // Followed verbatim, the links decode to the same parameters and the new cursor.
    const next = new URL(paging!.next!);
    expect(next.searchParams.get('fields')).toBe('id,text,replies.limit(5){text,username},media{id}');
    expect(next.searchParams.get('access_token')).toBe('EA+B/1');
    expect(next.searchParams.get('q')).toBe('a b');
    expect(next.searchParams.get('after')).toBe('a&b=c');
    expect(new URL(paging!.previous!).searchParams.get('before')).toBe('QV+F/I=');
  });

  it('keeps repeated parameters and the origin, and drops the fragment', () => {
    const requestUrl = new URL('https://graph.example.test:8443/17841400000000001/media?metric=a&metric=b#top');
    expect(buildPaging({ requestUrl, before: 'x', after: 'y', hasPrevious: false, hasNext: true })?.next).toBe(
      'https://graph.example.test:8443/17841400000000001/media?metric=a&metric=b&after=y',
    );
  });

  it('links a request without a query', () => {
    expect(buildPaging({ requestUrl: new URL(BASE), before: 'x', after: 'y', hasPrevious: false, hasNext: true })?.next).toBe(
      `${BASE}?after=y`,
    );
  });

  it('does not change the request URL it is given', () => {
    const requestUrl = new URL(`${BASE}?after=OLD&fields=id,text#frag`);
    buildPaging({ requestUrl, before: 'x', after: 'y', hasPrevious: true, hasNext: true });
    expect(requestUrl.href).toBe(`${BASE}?after=OLD&fields=id,text#frag`);
  });
});

describe('buildTimePaging', () => {
  const INSIGHTS = 'http://localhost:8081/v21.0/17841400000000001/insights';

  it('moves since and until one window back and forward, repeating the other parameters', () => {
    const requestUrl = new URL(`${INSIGHTS}?metric=reach,follower_count&period=day&since=1700000000&access_token=EAAB123&until=1700172800`);
    expect(buildTimePaging({ requestUrl, since: 1700000000, until: 1700172800, hasPrevious: true, hasNext: true })).toStrictEqual({
      previous: `${INSIGHTS}?metric=reach%2Cfollower_count&period=day&access_token=EAAB123&since=1699827200&until=1700000000`,
      next: `${INSIGHTS}?metric=reach%2Cfollower_count&period=day&access_token=EAAB123&since=1700172800&until=1700345600`,
    });
  });

  it('writes the window the edge chose when the request gave none', () => {
    const requestUrl = new URL(`${INSIGHTS}?metric=reach&period=day&access_token=EAAB123`);
    expect(buildTimePaging({ requestUrl, since: 1700000000, until: 1700086400, hasPrevious: true, hasNext: false })).toStrictEqual({
      previous: `${INSIGHTS}?metric=reach&period=day&access_token=EAAB123&since=1699913600&until=1700000000`,
    });
  });

  it('gives only next on the first window and nothing when there is neither', () => {
    const requestUrl = new URL(`${INSIGHTS}?metric=reach&period=day`);
    expect(buildTimePaging({ requestUrl, since: 100, until: 160, hasPrevious: false, hasNext: true })).toStrictEqual({
      next: `${INSIGHTS}?metric=reach&period=day&since=160&until=220`,
    });
    expect(buildTimePaging({ requestUrl, since: 100, until: 160, hasPrevious: false, hasNext: false })).toBeUndefined();
  });

  it('has no cursors', () => {
    const paging = buildTimePaging({ requestUrl: new URL(INSIGHTS), since: 0, until: 86400, hasPrevious: true, hasNext: true });
    expect(paging).not.toHaveProperty('cursors');
    expect(paging?.previous).toBe(`${INSIGHTS}?since=-86400&until=0`);
  });

  it.each([
    [100, 100],
    [200, 100],
    [1.5, 100],
    [Number.NaN, 100],
  ])('refuses the window since=%s until=%s', (since, until) => {
    expect(() => buildTimePaging({ requestUrl: new URL(INSIGHTS), since, until, hasPrevious: true, hasNext: true })).toThrow(RangeError);
  });
});

describe('graphPage', () => {
  it('wraps data with paging when there is one', () => {
    const paging = { cursors: { before: 'a', after: 'a' } };
    expect(graphPage([{ id: '1' }], paging)).toStrictEqual({ data: [{ id: '1' }], paging });
    expect(JSON.stringify(graphPage([{ id: '1' }], undefined))).toBe('{"data":[{"id":"1"}]}');
  });
});
