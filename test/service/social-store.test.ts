import { beforeAll, describe, expect, it } from 'vitest';
import { isSocialId, kindOfSocialId } from '../../lib/social-graph/social-ids.ts';
import type { SocialTables } from '../../subgraphs/shared/social-graph/social-tables.ts';
import { useTestDatabase } from '../support/test-system.ts';
import type { Kysely } from 'kysely';

describe('the social data store', () => {
  let db: Kysely<SocialTables>;
  const database = useTestDatabase();
  beforeAll(() => {
    db = database().db.withTables<SocialTables>();
  });

  it('draws ids that name their kind, above 2^53, as strings', async () => {
    const account = await db
      .insertInto('social.account')
      .values({
        account_type: 'BUSINESS',
        username: 'bluebottle',
        profile_picture_url: null,
        alt_text: null,
        legacy_social_user_id: null,
        shop_business_id: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const media = await db
      .insertInto('social.media')
      .values({
        owner_id: account.id,
        media_type: 'IMAGE',
        media_product_type: 'FEED',
        media_url: 'https://cdn.example/1.jpg',
        permalink: 'https://social.example/p/1',
        thumbnail_url: null,
        live_ended_at: null,
        deleted_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const comment = await db
      .insertInto('social.comment')
      .values({
        media_id: media.id,
        author_id: account.id,
        parent_id: null,
        text: 'first',
        legacy_social_comment_id: null,
        deleted_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    expect(typeof account.id).toBe('string');
    expect(kindOfSocialId(account.id)).toBe('account');
    expect(isSocialId(media.id, 'media')).toBe(true);
    expect(isSocialId(comment.id, 'comment')).toBe(true);
    expect(BigInt(comment.id) > 2n ** 53n).toBe(true);
  });
});
