import type { Generated, Kysely, Transaction } from 'kysely';

/** Kysely's view of the social data store (schema `social`). 64-bit ids are decimal strings. */

export interface PlatformUserTable {
  id: Generated<string>;
  name: string;
  created_at: Generated<Date>;
}

export interface BusinessTable {
  id: Generated<string>;
  name: string;
}

export type AccountType = 'BUSINESS' | 'MEDIA_CREATOR' | 'PERSONAL';

export interface AccountTable {
  id: Generated<string>;
  account_type: AccountType;
  username: string;
  name: Generated<string>;
  biography: Generated<string>;
  website: Generated<string>;
  profile_picture_url: string | null;
  alt_text: string | null;
  followers_count: Generated<number>;
  follows_count: Generated<number>;
  is_published: Generated<boolean>;
  legacy_social_user_id: string | null;
  age_gated: Generated<boolean>;
  shop_business_id: string | null;
  shop_approved: Generated<boolean>;
  shop_catalog_product_count: Generated<number>;
  created_at: Generated<Date>;
}

export interface PageTable {
  id: Generated<string>;
  name: string;
  account_id: string | null;
  business_id: string | null;
}

export interface PageRoleTable {
  page_id: string;
  platform_user_id: string;
  tasks: Generated<string[]>;
  via_business_manager: Generated<boolean>;
}

export interface BusinessAdminTable {
  business_id: string;
  platform_user_id: string;
}

export type MediaType = 'IMAGE' | 'VIDEO' | 'CAROUSEL_ALBUM';
export type MediaProductType = 'FEED' | 'STORY' | 'REELS' | 'AD';

export interface MediaTable {
  id: Generated<string>;
  owner_id: string;
  caption: Generated<string>;
  media_type: MediaType;
  media_product_type: MediaProductType;
  media_url: string;
  permalink: string;
  thumbnail_url: string | null;
  timestamp: Generated<Date>;
  like_count: Generated<number>;
  comment_enabled: Generated<boolean>;
  is_live: Generated<boolean>;
  live_ended_at: Date | null;
  deleted_at: Date | null;
}

export interface CommentTable {
  id: Generated<string>;
  media_id: string;
  author_id: string;
  parent_id: string | null;
  text: string;
  hidden: Generated<boolean>;
  like_count: Generated<number>;
  timestamp: Generated<Date>;
  legacy_social_comment_id: string | null;
  deleted_at: Date | null;
}

export interface MentionTable {
  account_id: string;
  media_id: string;
  comment_id: string | null;
  created_at: Generated<Date>;
}

export interface MediaTagTable {
  media_id: string;
  account_id: string;
  created_at: Generated<Date>;
}

export type SocialTables = {
  'social.platform_user': PlatformUserTable;
  'social.business': BusinessTable;
  'social.account': AccountTable;
  'social.page': PageTable;
  'social.page_role': PageRoleTable;
  'social.business_admin': BusinessAdminTable;
  'social.media': MediaTable;
  'social.comment': CommentTable;
  'social.mention': MentionTable;
  'social.media_tag': MediaTagTable;
};

export type SocialDb = Kysely<SocialTables> | Transaction<SocialTables>;
