import type { CursorCodec } from '../../lib/social-graph/cursor.ts';
import { parseGraphTime, toUnixSeconds } from '../../lib/social-graph/graph-time.ts';
import { isSocialId, wellFormedIds } from '../../lib/social-graph/social-ids.ts';
import { inIdOrder } from '../../lib/in-id-order.ts';
import { administeredBusinesses, authorize, managesAccount, type Viewer } from '../shared/social-graph/social-access.ts';
import { NODE_TYPES, type SocialOperation } from '../../contracts/social-graph.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import { assemblePage, mapPage, readPageArgs, type Page, type PageArgs, type PageLimits } from '../shared/social-graph/social-paging.ts';
import type { SocialDb } from '../shared/social-graph/social-tables.ts';
import type {
  AccountEdgesService,
  AuthorizeAdAccountInput,
  CreateContainerInput,
  CreateUpcomingEventInput,
  InsightsParams,
  MediaContainer,
} from './account-edges/account-edges.types.ts';
import {
  countMediaNewerThan,
  findAccountByUsername,
  findAccountsByIds,
  findMediaByIds,
  isMentionedInCaption,
  findPlatformUser,
  listMedia,
  listUserPages,
  type AccountRecord,
  type MediaListKind,
  type MediaRecord,
} from './accounts.repository.ts';

/**
 * The rules of the professional-account node and its media edges (Area C). Every transport reaches them through GraphQL
 * resolvers that call this service; nothing here knows about HTTP.
 */

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
const STORY_LIFETIME_MS = 24 * 60 * 60 * 1000;
const MEDIA_LIMITS: PageLimits = { defaultLimit: 25, maxLimit: 100 };

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

const LIST_OPERATION: Record<Exclude<MediaListKind, 'children'>, SocialOperation> = {
  media: 'readMedia',
  stories: 'readStories',
  live: 'readLiveMedia',
  tags: 'readTags',
};

export function createAccountsService(deps: AccountsServiceDeps) {
  const { db, codec, now, edges } = deps;

  /** An edge of a managed account: the field must exist for the view and the viewer must hold the operation. */
  function edgeOf(viewer: Viewer, view: AccountView, field: string, operation: SocialOperation): string {
    if (view.scope === 'public') throw socialErrors.unknownField(field, NODE_TYPES.account);
    authorize(viewer, operation, { accountId: view.account.id });
    return view.account.id;
  }

  /** A write to an account's edge: the account must be one the viewer acts for (else "does not exist" for a post). */
  function writeTo(viewer: Viewer, accountId: string, operation: SocialOperation): string {
    if (!isSocialId(accountId, 'account')) throw socialErrors.unknownObject(accountId, 'post');
    authorize(viewer, operation, { accountId, method: 'post' });
    return accountId;
  }

  /** The parent-platform conditions of upcoming events: the account's page must belong to a business. */
  function requireBusinessPage(viewer: Viewer, accountId: string): void {
    if (viewer.host === 'parent' && viewer.pageRoles.get(accountId)?.businessId === null) throw socialErrors.notAllowed();
  }

  function parseTime(name: string, value: string | null | undefined): number | undefined {
    if (value === undefined || value === null) return undefined;
    const date = parseGraphTime(value, now());
    if (!date) throw socialErrors.invalidParameter(name, `The parameter ${name} must be a unix timestamp or a date, got "${value}".`);
    return toUnixSeconds(date);
  }

  async function loadAccount(id: string): Promise<AccountRecord | undefined> {
    return (await findAccountsByIds(db, [id]))[0];
  }

  return {
    /** Batch load for entity references and DataLoaders: accounts in the order of `ids`. */
    async loadAccounts(ids: readonly string[]): Promise<(AccountRecord | undefined)[]> {
      return inIdOrder(ids, await findAccountsByIds(db, wellFormedIds(ids, 'account')));
    },

    async loadMedia(ids: readonly string[]): Promise<(MediaRecord | undefined)[]> {
      return inIdOrder(ids, await findMediaByIds(db, wellFormedIds(ids, 'media')));
    },

    /** GET /<account_id>: an account the viewer acts for. */
    async account(viewer: Viewer, id: string): Promise<AccountView> {
      if (!isSocialId(id, 'account') || !managesAccount(viewer, id)) throw socialErrors.unknownObject(id);
      const account = await loadAccount(id);
      if (!account || account.accountType === 'PERSONAL') throw socialErrors.unknownObject(id);
      return { account, scope: 'managed' };
    },

    /** `/me` on the own-login host: the account that granted the token. */
    async me(viewer: Viewer): Promise<AccountView> {
      if (viewer.host !== 'own') {
        throw socialErrors.invalidParameter(
          'me',
          'me is the professional account of an own-login token; with a parent-platform token ask for platformUser.',
        );
      }
      return this.account(viewer, viewer.subjectId);
    },

    /** An account reached as a federation entity: managed when the viewer acts for it, otherwise public fields only. */
    viewOf(viewer: Viewer, account: AccountRecord): AccountView {
      return { account, scope: managesAccount(viewer, account.id) ? 'managed' : 'public' };
    },

    /**
     * Checks a field of the account node: refused (as the platform does) when not public for an account seen through
     * business_discovery; on a managed account, the node's read permissions (each edge checks its own instead, so that
     * `/<account>/agencies` needs the agencies permissions only).
     */
    checkField(view: AccountView, field: string, viewer?: Viewer): void {
      if (view.scope === 'public') {
        if (!PUBLIC_ACCOUNT_FIELDS.has(field)) throw socialErrors.unknownField(field, NODE_TYPES.account);
        return;
      }
      if (viewer) authorize(viewer, 'readAccount', { accountId: view.account.id });
    },

    /** Fields only the own-login host's account node has (`account_type`, `user_id`). */
    checkOwnHostField(viewer: Viewer, view: AccountView, field: string): void {
      this.checkField(view, field, viewer);
      if (viewer.host !== 'own') throw socialErrors.unknownField(field, NODE_TYPES.account);
    },

    /**
     * shopping_product_tag_eligibility: catalog_management + social_shopping_tag_products (parent host), then true only
     * when the app user administers the business that owns the account's shop, and the shop is approved with products.
     */
    async shoppingProductTagEligibility(viewer: Viewer, view: AccountView): Promise<boolean> {
      // A field of the node: the node's read permissions first (and the business-manager rule), then its own.
      this.checkField(view, 'shopping_product_tag_eligibility', viewer);
      authorize(viewer, 'shoppingEligibility', { accountId: view.account.id });
      const { shopBusinessId, shopApproved, shopCatalogProductCount } = view.account;
      if (shopBusinessId === null || !shopApproved || shopCatalogProductCount === 0) return false;
      return (await administeredBusinesses(db, viewer)).includes(shopBusinessId);
    },

    /** The media, stories, live_media and tags edges. */
    async mediaPage(
      viewer: Viewer,
      view: AccountView,
      kind: Exclude<MediaListKind, 'children'>,
      args: MediaPageArgs,
    ): Promise<Page<MediaView>> {
      const fieldName = kind === 'live' ? 'live_media' : kind;
      this.checkField(view, fieldName);
      // business_discovery's media was authorised with business_discovery itself.
      if (view.scope === 'managed') authorize(viewer, LIST_OPERATION[kind], { accountId: view.account.id });
      const page = readPageArgs(codec, args, MEDIA_LIMITS);
      const since = kind === 'media' || kind === 'live' ? parseTime('since', args.since) : undefined;
      const until = kind === 'media' || kind === 'live' ? parseTime('until', args.until) : undefined;
      if (kind === 'media' && page.position && page.direction === 'forward') {
        const [seconds, id] = page.position as [number, string];
        if ((await countMediaNewerThan(db, view.account.id, seconds, id)) + page.limit > MEDIA_EDGE_REACH) {
          throw socialErrors.cursorTooFar();
        }
      }
      const rows = await listMedia(db, {
        kind,
        ownerId: view.account.id,
        page,
        since,
        until,
        storiesAfter: new Date(now().getTime() - STORY_LIFETIME_MS),
      });
      const result = assemblePage(codec, page, rows, (media) => [toUnixSeconds(media.timestamp), media.id]);
      return mapPage(result, (media) => ({ media, owned: managesAccount(viewer, media.ownerId) }));
    },

    /** The children of a carousel album. */
    async carouselChildren(view: MediaView, args: PageArgs): Promise<Page<MediaView>> {
      if (view.media.mediaType !== 'CAROUSEL_ALBUM')
        return { items: [], startCursor: undefined, endCursor: undefined, hasNextPage: false, hasPreviousPage: false };
      const page = readPageArgs(codec, args, MEDIA_LIMITS);
      const rows = await listMedia(db, { kind: 'children', ownerId: view.media.id, page });
      const result = assemblePage(codec, page, rows, (media) => [toUnixSeconds(media.timestamp), media.id]);
      return mapPage(result, (media) => ({ media, owned: view.owned }));
    },

    /** business_discovery.username(x): another professional account's public fields. */
    async businessDiscovery(viewer: Viewer, view: AccountView, username: string | null | undefined): Promise<AccountView> {
      this.checkField(view, 'business_discovery');
      authorize(viewer, 'businessDiscovery', { accountId: view.account.id });
      if (username === undefined || username === null || username === '') throw socialErrors.missingParameter('username');
      const found = await findAccountByUsername(db, username);
      if (!found || found.accountType === 'PERSONAL' || found.ageGated || !found.isPublished) {
        throw socialErrors.invalidParameter('username', `Cannot find User with username: ${username}`);
      }
      // Public fields only, even for an account the viewer also acts for: the edge shows what anyone may discover.
      return { account: found, scope: 'public' };
    },

    /** mentioned_media.media_id(x): a media object in whose caption the account was @mentioned. */
    async mentionedMedia(viewer: Viewer, view: AccountView, mediaId: string | null | undefined): Promise<MediaView> {
      this.checkField(view, 'mentioned_media');
      authorize(viewer, 'readMentionedMedia', { accountId: view.account.id });
      if (mediaId === undefined || mediaId === null || mediaId === '') throw socialErrors.missingParameter('media_id');
      if (!isSocialId(mediaId, 'media')) throw socialErrors.unknownObject(mediaId);
      const [media] = await findMediaByIds(db, [mediaId]);
      if (!media || !(await isMentionedInCaption(db, view.account.id, mediaId))) throw socialErrors.unknownObject(mediaId);
      // "The app user" of this edge is the mentioned account: only its own media keeps `@` and shows `owner`.
      return { media, owned: media.ownerId === view.account.id };
    },

    /** A media object by id (GET /<media_id>): media of an account the viewer acts for. */
    async media(viewer: Viewer, id: string): Promise<MediaView> {
      if (!isSocialId(id, 'media')) throw socialErrors.unknownObject(id);
      const [media] = await findMediaByIds(db, [id]);
      if (!media) throw socialErrors.unknownObject(id);
      authorize(viewer, 'readMedia', { accountId: media.ownerId, objectId: id });
      return { media, owned: true };
    },

    /**
     * The caller of a request whose token checked out (socialCaller): nothing is looked up beyond the token, so a path the
     * graph does not serve can be refused after the token's own errors, as the platform orders them.
     */
    caller(viewer: Viewer): { host: Viewer['host']; subjectId: string } {
      return { host: viewer.host, subjectId: viewer.subjectId };
    },

    /** GET /me on the parent-platform host: the user behind the token. */
    async platformUser(viewer: Viewer) {
      if (viewer.host !== 'parent') {
        throw socialErrors.invalidParameter('platformUser', 'platformUser needs a parent-platform (Login for Business) token.');
      }
      const user = await findPlatformUser(db, viewer.subjectId);
      if (!user) throw socialErrors.meWithoutUser();
      return user;
    },

    /** GET /me/accounts on the parent-platform host: the user's pages, each with its linked account if the token may read it. */
    async userPages(viewer: Viewer) {
      return listUserPages(db, viewer.subjectId);
    },

    async insights(viewer: Viewer, view: AccountView, params: InsightsParams) {
      return edges.insights(edgeOf(viewer, view, 'insights', 'readInsights'), params);
    },

    async contentPublishingLimit(viewer: Viewer, view: AccountView, since: string | null | undefined) {
      return edges.contentPublishingLimit(edgeOf(viewer, view, 'content_publishing_limit', 'readPublishingLimit'), since);
    },

    async recentlySearchedHashtags(viewer: Viewer, view: AccountView, limit: number | null | undefined) {
      return edges.recentlySearchedHashtags(edgeOf(viewer, view, 'recently_searched_hashtags', 'readRecentHashtags'), limit);
    },

    async upcomingEvents(viewer: Viewer, view: AccountView, args: PageArgs) {
      const accountId = edgeOf(viewer, view, 'upcoming_events', 'upcomingEvents');
      requireBusinessPage(viewer, accountId);
      return edges.listUpcomingEvents(accountId, args);
    },

    async createUpcomingEvent(viewer: Viewer, accountId: string, input: CreateUpcomingEventInput) {
      writeTo(viewer, accountId, 'upcomingEvents');
      requireBusinessPage(viewer, accountId);
      return edges.createUpcomingEvent(accountId, input);
    },

    async agencies(viewer: Viewer, view: AccountView, args: PageArgs) {
      return edges.agencies(edgeOf(viewer, view, 'agencies', 'readAgencies'), args);
    },

    async authorizedAdAccounts(viewer: Viewer, view: AccountView, business: string | null | undefined, args: PageArgs) {
      return edges.authorizedAdAccounts(edgeOf(viewer, view, 'authorized_adaccounts', 'adAccounts'), business ?? undefined, args);
    },

    /** POST authorized_adaccounts: the app user must administer the business whose ad account it authorises. */
    async authorizeAdAccount(viewer: Viewer, accountId: string, input: AuthorizeAdAccountInput): Promise<true> {
      writeTo(viewer, accountId, 'adAccounts');
      if (!input.businessId) throw socialErrors.missingParameter('business');
      if (!(await administeredBusinesses(db, viewer)).includes(input.businessId)) throw socialErrors.notAllowed();
      return edges.authorizeAdAccount(accountId, input);
    },

    async createContainer(viewer: Viewer, accountId: string, input: CreateContainerInput): Promise<MediaContainer> {
      return edges.createContainer(writeTo(viewer, accountId, 'publish'), input, viewer.subjectId);
    },

    async publishContainer(viewer: Viewer, accountId: string, creationId: string | null | undefined): Promise<MediaView> {
      const published = await edges.publishContainer(writeTo(viewer, accountId, 'publish'), creationId);
      const [media] = await findMediaByIds(db, [published.id]);
      return { media: media!, owned: true };
    },

    /** GET /<container_id>: a container of an account the viewer acts for. */
    async container(viewer: Viewer, id: string): Promise<MediaContainer> {
      const container = await edges.findContainerById(id);
      if (!container) throw socialErrors.unknownObject(id);
      authorize(viewer, 'publish', { accountId: container.accountId, objectId: id });
      return container;
    },

    /** A media object reached as a federation entity (a comment's media). */
    mediaViewOf(viewer: Viewer, media: MediaRecord): MediaView {
      return { media, owned: managesAccount(viewer, media.ownerId) };
    },

    /** `owner`: only for media of an account the viewer acts for (others' media show `username` instead). */
    async owner(view: MediaView, load: (id: string) => Promise<AccountRecord | undefined>): Promise<AccountView | null> {
      if (!view.owned) return null;
      const account = await load(view.media.ownerId);
      return account ? { account, scope: 'managed' } : null;
    },

    /** `social_business_account` of a page: the linked account, which the token must be allowed to read. */
    async pageAccount(
      viewer: Viewer,
      accountId: string | null,
      load: (id: string) => Promise<AccountRecord | undefined>,
    ): Promise<AccountView | null> {
      if (accountId === null) return null;
      authorize(viewer, 'readAccount', { accountId });
      const account = await load(accountId);
      return account ? { account, scope: 'managed' } : null;
    },

    /** The caption as the viewer may read it: `@` removed from mentions unless the viewer's account made the media. */
    caption(view: MediaView): string {
      return view.owned ? view.media.caption : view.media.caption.replace(/@(?=[A-Za-z0-9._])/g, '');
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
