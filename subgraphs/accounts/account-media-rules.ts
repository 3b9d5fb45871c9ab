import { toUnixSeconds } from '../../lib/social-graph/graph-time.ts';
import { isSocialId, wellFormedIds } from '../../lib/social-graph/social-ids.ts';
import { inIdOrder } from '../../lib/in-id-order.ts';
import { authorize, managesAccount, type Viewer } from '../shared/social-graph/social-access.ts';
import { socialErrors } from '../shared/social-graph/social-errors.ts';
import { assemblePage, mapPage, readPageArgs, type Page, type PageArgs } from '../shared/social-graph/social-paging.ts';
import {
  countMediaNewerThan,
  findMediaByIds,
  isMentionedInCaption,
  listMedia,
  type AccountRecord,
  type MediaListKind,
  type MediaRecord,
} from './accounts.repository.ts';
import { checkAccountField, parseTime } from './account-field-rules.ts';
import {
  LIST_OPERATION,
  MEDIA_EDGE_REACH,
  MEDIA_LIMITS,
  STORY_LIFETIME_MS,
  type AccountView,
  type AccountsServiceDeps,
  type MediaPageArgs,
  type MediaView,
} from './account-views.ts';

/** The accounts service's media (accounts.service.ts): the media, stories, live and tags edges, carousels, mentioned media, a media node. */
export function accountMediaRules(deps: AccountsServiceDeps) {
  const { db, codec, now } = deps;
  return {
    async loadMedia(ids: readonly string[]): Promise<(MediaRecord | undefined)[]> {
      return inIdOrder(ids, await findMediaByIds(db, wellFormedIds(ids, 'media')));
    },

    /** The media, stories, live_media and tags edges. */
    async mediaPage(
      viewer: Viewer,
      view: AccountView,
      kind: Exclude<MediaListKind, 'children'>,
      args: MediaPageArgs,
    ): Promise<Page<MediaView>> {
      const fieldName = kind === 'live' ? 'live_media' : kind;
      checkAccountField(view, fieldName);
      // business_discovery's media was authorised with business_discovery itself.
      if (view.scope === 'managed') authorize(viewer, LIST_OPERATION[kind], { accountId: view.account.id });
      const page = readPageArgs(codec, args, MEDIA_LIMITS);
      const since = kind === 'media' || kind === 'live' ? parseTime('since', args.since, now) : undefined;
      const until = kind === 'media' || kind === 'live' ? parseTime('until', args.until, now) : undefined;
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

    /** mentioned_media.media_id(x): a media object in whose caption the account was @mentioned. */
    async mentionedMedia(viewer: Viewer, view: AccountView, mediaId: string | null | undefined): Promise<MediaView> {
      checkAccountField(view, 'mentioned_media');
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

    /** The caption as the viewer may read it: `@` removed from mentions unless the viewer's account made the media. */
    caption(view: MediaView): string {
      return view.owned ? view.media.caption : view.media.caption.replace(/@(?=[A-Za-z0-9._])/g, '');
    },
  };
}
