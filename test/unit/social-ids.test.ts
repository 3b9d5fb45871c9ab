import { describe, expect, it } from 'vitest';
import {
  ID_BASE,
  isSocialId,
  kindOfSocialId,
  socialId,
  socialIdDefault,
  SOCIAL_KINDS,
  type SocialKind,
} from '../../lib/social-graph/social-ids.ts';

describe('social ids', () => {
  it('are 17-digit numeric strings above 2^53 that name their kind', () => {
    const id = socialId('account', 1n);
    expect(id).toBe('17840000000000017');
    expect(BigInt(id) > 2n ** 53n).toBe(true);
    expect(kindOfSocialId(id)).toBe('account');
  });

  it('round-trips every kind at small and large sequences', () => {
    for (const kind of Object.keys(SOCIAL_KINDS) as SocialKind[]) {
      for (const sequence of [1n, 2n, 12_345n, 10n ** 15n]) {
        const id = socialId(kind, sequence);
        expect(kindOfSocialId(id), `${kind} ${sequence}`).toBe(kind);
        expect(isSocialId(id, kind)).toBe(true);
      }
    }
  });

  it('tells kinds apart', () => {
    expect(isSocialId(socialId('comment', 7n), 'account')).toBe(false);
    expect(kindOfSocialId(socialId('media', 7n))).toBe('media');
  });

  it.each([
    ['', 'empty'],
    ['abc', 'not digits'],
    ['017840000000000017', 'a leading zero'],
    ['17840000000000000', 'the base itself'],
    ['17840000000000016', 'kind slot 0 (unused)'],
    ['17840000000000031', 'kind slot 15 (unused)'],
    ['1234', 'too short'],
    ['9223372036854775808', 'beyond int64'],
    ['99999999999999999999', 'beyond 19 digits'],
  ])('refuses %j (%s)', (id) => {
    expect(kindOfSocialId(id)).toBeUndefined();
  });

  it('gives the SQL default that computes the same ids', () => {
    expect(socialIdDefault('comment', 'comments.comment_seq')).toBe(`(${ID_BASE} + nextval('comments.comment_seq') * 16 + 3)`);
  });
});
