import { sql } from 'kysely';
import type { AccountType, MediaProductType, MediaType, SocialDb } from './social-tables.ts';

/**
 * Writes social-graph objects directly into the store: the seed script's demo graph and the tests' fixtures. The platform
 * has no API to create accounts, pages or roles (they come from sign-ups and page settings), so these are made here, in
 * one place, instead of in each caller.
 */

export interface AccountInput {
  username: string;
  accountType?: AccountType;
  name?: string;
  biography?: string;
  website?: string;
  profilePictureUrl?: string | null;
  altText?: string | null;
  followersCount?: number;
  followsCount?: number;
  isPublished?: boolean;
  legacySocialUserId?: string | null;
  ageGated?: boolean;
  shop?: { businessId: string; approved: boolean; productCount: number };
}

export interface MediaInput {
  caption?: string;
  mediaType?: MediaType;
  mediaProductType?: MediaProductType;
  timestamp?: Date;
  likeCount?: number;
  commentEnabled?: boolean;
  isLive?: boolean;
  liveEndedAt?: Date | null;
}

export interface CommentInput {
  text: string;
  parentId?: string | null;
  hidden?: boolean;
  likeCount?: number;
  timestamp?: Date;
  legacySocialCommentId?: string | null;
}

export function createSocialGraphBuilder(db: SocialDb) {
  return {
    async platformUser(name: string): Promise<string> {
      const row = await db.insertInto('social.platform_user').values({ name }).returning('id').executeTakeFirstOrThrow();
      return String(row.id);
    },

    async business(name: string): Promise<string> {
      const row = await db.insertInto('social.business').values({ name }).returning('id').executeTakeFirstOrThrow();
      return String(row.id);
    },

    async businessAdmin(businessId: string, platformUserId: string): Promise<void> {
      await db.insertInto('social.business_admin').values({ business_id: businessId, platform_user_id: platformUserId }).execute();
    },

    async account(input: AccountInput): Promise<string> {
      const row = await db
        .insertInto('social.account')
        .values({
          account_type: input.accountType ?? 'BUSINESS',
          username: input.username,
          name: input.name ?? input.username,
          biography: input.biography ?? '',
          website: input.website ?? '',
          profile_picture_url: input.profilePictureUrl ?? null,
          alt_text: input.altText ?? null,
          followers_count: input.followersCount ?? 0,
          follows_count: input.followsCount ?? 0,
          is_published: input.isPublished ?? true,
          legacy_social_user_id: input.legacySocialUserId ?? null,
          age_gated: input.ageGated ?? false,
          shop_business_id: input.shop?.businessId ?? null,
          shop_approved: input.shop?.approved ?? false,
          shop_catalog_product_count: input.shop?.productCount ?? 0,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return String(row.id);
    },

    /** A parent-platform page linked to the account, optionally owned by a business. */
    async page(name: string, accountId: string | null, businessId: string | null = null): Promise<string> {
      const row = await db
        .insertInto('social.page')
        .values({ name, account_id: accountId, business_id: businessId })
        .returning('id')
        .executeTakeFirstOrThrow();
      return String(row.id);
    },

    async pageRole(
      pageId: string,
      platformUserId: string,
      options: { tasks?: string[]; viaBusinessManager?: boolean } = {},
    ): Promise<void> {
      await db
        .insertInto('social.page_role')
        .values({
          page_id: pageId,
          platform_user_id: platformUserId,
          tasks: options.tasks ?? ['MANAGE', 'CREATE_CONTENT', 'MODERATE', 'ADVERTISE', 'ANALYZE'],
          via_business_manager: options.viaBusinessManager ?? false,
        })
        .execute();
    },

    async media(ownerId: string, input: MediaInput = {}): Promise<string> {
      const row = await db
        .insertInto('social.media')
        .values({
          owner_id: ownerId,
          caption: input.caption ?? '',
          media_type: input.mediaType ?? 'IMAGE',
          media_product_type: input.mediaProductType ?? 'FEED',
          media_url: 'https://cdn.social.example/media/placeholder.jpg',
          permalink: 'https://social.example/p/placeholder',
          thumbnail_url: null,
          timestamp: input.timestamp ?? new Date(),
          like_count: input.likeCount ?? 0,
          comment_enabled: input.commentEnabled ?? true,
          is_live: input.isLive ?? false,
          live_ended_at: input.liveEndedAt ?? null,
          deleted_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      const id = String(row.id);
      // Addresses derived from the id, as the platform's are.
      await db
        .updateTable('social.media')
        .set({
          media_url: sql<string>`'https://cdn.social.example/media/' || id::text || '.jpg'`,
          permalink: sql<string>`'https://social.example/p/' || id::text || '/'`,
        })
        .where('id', '=', id)
        .execute();
      return id;
    },

    async comment(mediaId: string, authorId: string, input: CommentInput): Promise<string> {
      const row = await db
        .insertInto('social.comment')
        .values({
          media_id: mediaId,
          author_id: authorId,
          parent_id: input.parentId ?? null,
          text: input.text,
          hidden: input.hidden ?? false,
          like_count: input.likeCount ?? 0,
          timestamp: input.timestamp ?? new Date(),
          legacy_social_comment_id: input.legacySocialCommentId ?? null,
          deleted_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return String(row.id);
    },

    /** An @mention of the account in a media caption (commentId null) or in a comment. */
    async mention(accountId: string, mediaId: string, commentId: string | null = null): Promise<void> {
      await db.insertInto('social.mention').values({ account_id: accountId, media_id: mediaId, comment_id: commentId }).execute();
    },

    async tag(mediaId: string, accountId: string): Promise<void> {
      await db.insertInto('social.media_tag').values({ media_id: mediaId, account_id: accountId }).execute();
    },
  };
}

export type SocialGraphBuilder = ReturnType<typeof createSocialGraphBuilder>;
