/**
 * subgraphs/shared/social-graph/social-paging.ts and the connection over it: a page's cursors are made only when read,
 * once, and survive mapping the page's items (mapPage) and wrapping it as a GraphQL connection (toConnection).
 */
import { describe, expect, it, vi } from 'vitest';
import { createCursorCodec } from '../../lib/social-graph/cursor.ts';
import { toConnection } from '../../subgraphs/shared/social-graph/social-graphql.ts';
import { assemblePage, mapPage, readPageArgs } from '../../subgraphs/shared/social-graph/social-paging.ts';

const codec = createCursorCodec('social-paging-test-secret');
const rows = [
  { id: '30', seconds: 300 },
  { id: '20', seconds: 200 },
  { id: '10', seconds: 100 },
];
const positionOf = (row: { id: string; seconds: number }) => [row.seconds, row.id];

describe('assemblePage', () => {
  it('cuts the extra row, says a next page exists, and makes each cursor once, when read', () => {
    const encode = vi.spyOn(codec, 'encode');
    const page = assemblePage(codec, readPageArgs(codec, { first: 2 }), rows, positionOf);
    expect(page.items.map((row) => row.id)).toEqual(['30', '20']);
    expect([page.hasPreviousPage, page.hasNextPage]).toEqual([false, true]);
    expect(encode).not.toHaveBeenCalled();
    expect(page.startCursor).toBe(codec.encode([300, '30']));
    expect(page.endCursor).toBe(codec.encode([200, '20']));
    encode.mockClear();
    expect([page.startCursor, page.endCursor]).toEqual([codec.encode([300, '30']), codec.encode([200, '20'])]);
    expect(encode).toHaveBeenCalledTimes(2); // the two calls of this line's expectation, none from the page
    encode.mockRestore();
  });

  it('reads backward into list order, with a previous page when more rows came', () => {
    const request = readPageArgs(codec, { first: 2, before: codec.encode([50, '5']) });
    const page = assemblePage(codec, request, rows.slice().reverse(), positionOf);
    expect(page.items.map((row) => row.id)).toEqual(['20', '10']);
    expect([page.hasPreviousPage, page.hasNextPage]).toEqual([true, true]);
  });

  it('gives an empty page no cursors', () => {
    const page = assemblePage(codec, readPageArgs(codec, { first: 2, after: codec.encode([1, '1']) }), [], positionOf);
    expect([page.startCursor, page.endCursor, page.hasPreviousPage, page.hasNextPage]).toEqual([undefined, undefined, false, false]);
  });
});

describe('mapPage and toConnection', () => {
  it("keep the page's cursors and flags, made only when read", () => {
    const encode = vi.spyOn(codec, 'encode');
    const page = assemblePage(codec, readPageArgs(codec, { first: 2 }), rows, positionOf);
    const mapped = mapPage(page, (row) => ({ label: `#${row.id}` }));
    const connection = toConnection(mapped);
    expect(connection.nodes).toEqual([{ label: '#30' }, { label: '#20' }]);
    expect([connection.pageInfo.hasNextPage, connection.pageInfo.hasPreviousPage]).toEqual([true, false]);
    expect(encode).not.toHaveBeenCalled();
    expect(connection.pageInfo.startCursor).toBe(page.startCursor);
    expect(connection.pageInfo.endCursor).toBe(page.endCursor);
    expect(encode).toHaveBeenCalledTimes(2);
    encode.mockRestore();
  });

  it('gives null cursors for an empty page (GraphQL has no undefined)', () => {
    const connection = toConnection(assemblePage(codec, readPageArgs(codec, {}), [], positionOf));
    expect([connection.pageInfo.startCursor, connection.pageInfo.endCursor]).toEqual([null, null]);
  });
});
