import fc from 'fast-check';
import { excerpt, type Judgement, type ReplyView } from './error-formats.ts';
import type { HttpRequestSpec } from './http-door.ts';
import { hostileString } from './hostile-values.ts';

/** The conditional reads' part of the HTTP doors (issue 39: ETags and 304 on the Graph hosts and Area A's reads). */

/**
 * If-None-Match values: `*` (a 304 for any read that succeeds), tags that match nothing, broken lists, a header of
 * hundreds of tags and one of 8,000 characters. Only printable ASCII: a header cannot carry the rest.
 */
export const IF_NONE_MATCH = fc.oneof(
  { weight: 10, arbitrary: fc.constant<string | undefined>(undefined) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '*',
      '""',
      'W/',
      'W/"x"',
      '"unterminated',
      'garbage',
      ',,,',
      `"${'0'.repeat(40)}"`,
      'W/W/"a"',
      '"a", "b" ,, W/"c"',
      '*, "a"',
      Array.from({ length: 400 }, (_, index) => `"${index}"`).join(', '),
      'a'.repeat(8_000),
    ),
  },
  { weight: 1, arbitrary: hostileString({ maxLength: 200 }).map((text) => text.replace(/[^\x20-\x7e]/g, '?')) },
);

/**
 * A 304 is right only for a GET (or HEAD) that carried If-None-Match, with no body and the entity tag it matched; any
 * other status is the Graph's usual reply, judged as such (undefined here).
 */
export function judgeNotModified(reply: ReplyView, request: HttpRequestSpec): Judgement | undefined {
  if (reply.status !== 304) return undefined;
  const conditional = /^(GET|HEAD)$/i.test(request.method) && request.headers['if-none-match'] !== undefined;
  const wellFormed = conditional && reply.text === '' && /^"[0-9a-f]{40}"$/.test(reply.headers.etag ?? '');
  return {
    problems: wellFormed ? [] : [{ kind: 'format', detail: `a 304 that is not a conditional read's: ${excerpt(JSON.stringify(reply))}` }],
    rejected: false,
    unavailable: false,
  };
}
