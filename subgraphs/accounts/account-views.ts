import type { CursorCodec } from '../../lib/social-graph/cursor.ts';
import { type SocialOperation } from '../../contracts/social-graph.ts';
import { type PageArgs, type PageLimits } from '../shared/social-graph/social-paging.ts';
import type { SocialDb } from '../shared/social-graph/social-tables.ts';
import type { AccountEdgesService } from './account-edges/account-edges.types.ts';
import { type AccountRecord, type MediaListKind, type MediaRecord } from './accounts.repository.ts';

/** What the accounts service's parts share (accounts.service.ts): the views a request sees, the deps, the limits. */

/**
 * An account as one request may see it: `managed` — the viewer acts for it, every field it has permission for; `public` —
 * another professional account found through business_discovery, public fields only (spec: alt_text, biography,
 * followers_count, id, media_count, username, website; and its `media` edge).
 */
export interface AccountView {
  account: AccountRecord;
  scope: 'managed' | 'public';
}

/** A media object as one request may see it: `owned` when the viewer acts for its owner. */
export interface MediaView {
  media: MediaRecord;
  owned: boolean;
}

export const PUBLIC_ACCOUNT_FIELDS: ReadonlySet<string> = new Set([
  'id',
  'username',
  'biography',
  'website',
  'followers_count',
  'media_count',
  'alt_text',
  'media',
]);

/** The Graph API reaches back at most this many items of an account's media edge (§2.2). */
export const MEDIA_EDGE_REACH = 10_000;
export const STORY_LIFETIME_MS = 24 * 60 * 60 * 1000;
export const MEDIA_LIMITS: PageLimits = { defaultLimit: 25, maxLimit: 100 };

export interface AccountsServiceDeps {
  db: SocialDb;
  codec: CursorCodec;
  now: () => Date;
  /** The domain rules of the remaining edges (events, hashtags, ads, publishing, insights). */
  edges: AccountEdgesService;
}

export interface MediaPageArgs extends PageArgs {
  since?: string | null | undefined;
  until?: string | null | undefined;
}

export const LIST_OPERATION: Record<Exclude<MediaListKind, 'children'>, SocialOperation> = {
  media: 'readMedia',
  stories: 'readStories',
  live: 'readLiveMedia',
  tags: 'readTags',
};
