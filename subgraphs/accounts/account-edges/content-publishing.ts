import type { Transaction } from 'kysely';
import type { AppError } from '../../../lib/errors.ts';
import { toUnixSeconds } from '../../../lib/social-graph/graph-time.ts';
import { isSocialId } from '../../../lib/social-graph/social-ids.ts';
import { socialErrors } from '../../shared/social-graph/social-errors.ts';
import type { MediaProductType, MediaType, SocialTables } from '../../shared/social-graph/social-tables.ts';
import {
  countPublished,
  findAccountsByUsernames,
  findContainer,
  findContainers,
  insertCaptionMentions,
  insertContainer,
  insertMedia,
  insertMediaTags,
  lockAccount,
  markContainerPublished,
  type ContainerRow,
} from '../account-edges.repository.ts';
import { DAY_MS, DAY_SECONDS, SECOND, inTransaction, parseTimeParameter, type EdgeContext } from './edge-context.ts';

export const CONTAINER_LIFETIME_MS = DAY_MS;
export const PUBLISHING_QUOTA_DURATION = DAY_SECONDS;
export const DEFAULT_PUBLISHING_QUOTA = 100;
export const DEFAULT_VIDEO_PROCESSING_SECONDS = 30;
const SHORTCODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
import { publishing } from './publishing-errors.ts';
import { validateContainerInput } from './container-validation.ts';
import type {
  ContainerStatusCode,
  ContentPublishingLimit,
  CreateContainerInput,
  MediaContainer,
  PublishedMedia,
} from './account-edges.types.ts';
import { captionMentions } from './container-validation.ts';
import { appendEvents } from '../../shared/event-log/event-log.repository.ts';
import { accountChange, entityKey } from '../../shared/event-log/change-events.ts';
import { mentionEvent } from '../../shared/event-log/social-events.ts';

/** Media containers and their publication (`POST /<account>/media`, `media_publish`, `content_publishing_limit`): expiry, simulated video processing, carousels, uploaded images claimed from Area D, and the rolling publishing quota. */
export function createContentPublishing(ctx: EdgeContext) {
  const { db, clock, deps, checkAccountId } = ctx;
  const quotaTotal = deps.publishingQuota ?? DEFAULT_PUBLISHING_QUOTA;
  const videoProcessingMs = (deps.videoProcessingSeconds ?? DEFAULT_VIDEO_PROCESSING_SECONDS) * SECOND;
  const permalinkOrigin = (deps.permalinkOrigin ?? 'https://social.example').replace(/\/+$/, '');
  if (!Number.isInteger(quotaTotal) || quotaTotal < 0) throw new RangeError('publishingQuota must be a non-negative integer');
  const permalinkOf = (mediaId: string) => `${permalinkOrigin}/p/${shortcodeOf(mediaId)}`;
  const context: Publishing = { db, clock, deps, checkAccountId, quotaTotal, videoProcessingMs, permalinkOrigin, permalinkOf };
  return {
    createContainer: bindContext(context, createContainer),
    getContainer: bindContext(context, getContainer),
    findContainerById: bindContext(context, findContainerById),
    publishContainer: bindContext(context, publishContainer),
    contentPublishingLimit: bindContext(context, contentPublishingLimit),
  };
}

/** What the publishing functions share: the edge context and the publishing settings. */
interface Publishing {
  db: EdgeContext['db'];
  clock: EdgeContext['clock'];
  deps: EdgeContext['deps'];
  checkAccountId: EdgeContext['checkAccountId'];
  quotaTotal: number;
  videoProcessingMs: number;
  permalinkOrigin: string;
  permalinkOf: (mediaId: string) => string;
}

/** The image URL of an uploaded image, after checking that it may be used here (not expired, owned by a claimant). */
async function claimUpload(
  context: Publishing,
  trx: Transaction<SocialTables>,
  reference: string,
  claimants: string[],
): Promise<{ imageUrl: string; mediaId: string; altText: string | null }> {
  const { deps } = context;
  if (!deps.mediaClaims) throw socialErrors.invalidParameter('upload_media_id', 'Uploaded media are not available here.');
  const outcome = await deps.mediaClaims.claim(reference, claimants, trx);
  if (outcome.ok) {
    const { permalinkOrigin } = context;
    // A container takes an uploaded image; a video from the chunked upload is not one (the claim is rolled back).
    if (!outcome.mimeType.startsWith('image/')) {
      throw socialErrors.invalidParameter('upload_media_id', `The media id ${outcome.mediaId} is a video, not an image.`);
    }
    const extension = outcome.mimeType.replace('image/', '').replace('jpeg', 'jpg');
    return { imageUrl: `${permalinkOrigin}/media/${outcome.mediaId}.${extension}`, mediaId: outcome.mediaId, altText: outcome.altText };
  }
  switch (outcome.reason) {
    case 'malformed':
    case 'unknown':
      throw socialErrors.invalidParameter('upload_media_id', `The media id ${reference} was not found.`);
    case 'expired':
      throw socialErrors.invalidParameter(
        'upload_media_id',
        `The media id ${outcome.mediaId} expired at ${outcome.expiredAt.toISOString()}; upload the image again.`,
      );
    case 'not-owner':
      throw socialErrors.invalidParameter('upload_media_id', `User id ${claimants[0]} doesn't own media id ${outcome.mediaId}.`);
    case 'not-ready':
      throw socialErrors.invalidParameter(
        'upload_media_id',
        outcome.state === 'failed'
          ? `The media id ${outcome.mediaId} failed processing and cannot be used.`
          : `The media id ${outcome.mediaId} is still processing (${outcome.state}); ask its STATUS until it has succeeded.`,
      );
  }
}

async function createContainer(
  context: Publishing,
  accountId: string,
  input: CreateContainerInput,
  actingUserId?: string,
): Promise<MediaContainer> {
  const { db, clock, checkAccountId, videoProcessingMs } = context;
  checkAccountId(accountId, 'post');
  const now = clock();
  const draft = validateContainerInput(input);

  return inTransaction(db, async (trx) => {
    if (!(await lockAccount(trx, accountId))) throw socialErrors.unknownObject(accountId, 'post');
    if (draft.uploadMediaId !== null) {
      const claimed = await claimUpload(context, trx, draft.uploadMediaId, [...new Set([actingUserId ?? accountId, accountId])]);
      draft.imageUrl = claimed.imageUrl;
      draft.uploadMediaId = claimed.mediaId;
      // The alt text set on the upload (POST /1.1/media/metadata/create.json) unless the request gives its own.
      draft.altText ??= claimed.altText;
    }
    if (draft.mediaType === 'CAROUSEL') {
      const children = await findContainers(
        trx,
        draft.children.filter((id) => isSocialId(id, 'container')),
      );
      const byId = new Map(children.map((child) => [child.id, child]));
      for (const id of draft.children) {
        const child = byId.get(id);
        // Another account's container is reported like a missing one: it must not reveal that it exists.
        if (!child || child.account_id !== accountId || !child.is_carousel_item) {
          throw socialErrors.invalidParameter(
            'children',
            `The carousel item ${id} does not exist or is not a carousel item of this account.`,
          );
        }
        const problem = unusable(child, now, 'children');
        if (problem) throw problem;
      }
    }
    const isVideo = draft.videoUrl !== null;
    const row = await insertContainer(trx, {
      account_id: accountId,
      media_type: draft.mediaType,
      image_url: draft.imageUrl,
      video_url: draft.videoUrl,
      upload_media_id: draft.uploadMediaId,
      caption: draft.caption,
      is_carousel_item: draft.isCarouselItem,
      children: draft.children,
      user_tags: draft.userTags,
      collaborators: draft.collaborators,
      location_id: draft.locationId,
      alt_text: draft.altText,
      share_to_feed: draft.shareToFeed,
      cover_url: draft.coverUrl,
      thumb_offset: draft.thumbOffset,
      audio_name: draft.audioName,
      // Images (and carousels of finished items) are ready at once; a video "processes" for a while, as on the
      // platform, so that clients that publish without polling status_code meet the platform's not-ready error.
      status_code: isVideo && videoProcessingMs > 0 ? 'IN_PROGRESS' : 'FINISHED',
      created_at: now,
      ready_at: new Date(now.getTime() + (isVideo ? videoProcessingMs : 0)),
      expires_at: new Date(now.getTime() + CONTAINER_LIFETIME_MS),
    });
    await appendEvents(trx, [accountChange('media_container_created', accountId, [entityKey('MediaContainer', row.id)])]);
    return toContainer(row, now);
  });
}

async function getContainer(context: Publishing, accountId: string, containerId: string): Promise<MediaContainer> {
  const { db, clock, checkAccountId } = context;
  checkAccountId(accountId, 'get');
  const row = isSocialId(containerId, 'container') ? await findContainer(db, containerId) : undefined;
  if (!row || row.account_id !== accountId) throw socialErrors.unknownObject(containerId, 'get');
  return toContainer(row, clock());
}

async function findContainerById(context: Publishing, containerId: string): Promise<MediaContainer | undefined> {
  const { db, clock } = context;
  const row = isSocialId(containerId, 'container') ? await findContainer(db, containerId) : undefined;
  return row ? toContainer(row, clock()) : undefined;
}

async function publishContainer(context: Publishing, accountId: string, creationId: string | null | undefined): Promise<PublishedMedia> {
  const { db, clock, checkAccountId, quotaTotal, permalinkOf } = context;
  checkAccountId(accountId, 'post');
  const id = creationId?.trim() ?? '';
  if (id === '') throw socialErrors.missingParameter('creation_id');
  const now = clock();

  return inTransaction(db, async (trx) => {
    // Locking the account serialises its publications, so the quota cannot be overrun by concurrent requests.
    const account = await lockAccount(trx, accountId);
    if (!account) throw socialErrors.unknownObject(accountId, 'post');
    const container = isSocialId(id, 'container') ? await findContainer(trx, id, true) : undefined;
    // The platform's 24 / 2207006 ("cannot be found", possibly for want of permission) covers another account's too.
    if (!container || container.account_id !== accountId) throw publishing.notFound(id);
    if (container.is_carousel_item) {
      // No documented error: a carousel item is only ever published through its carousel.
      throw socialErrors.invalidParameter(
        'creation_id',
        `The container ${id} is a carousel item: publish the carousel container that holds it.`,
      );
    }
    const problem = unusable(container, now, 'creation_id');
    if (problem) throw problem;

    const used = await countPublished(trx, accountId, new Date(now.getTime() - PUBLISHING_QUOTA_DURATION * SECOND), now);
    if (used >= quotaTotal) throw publishing.limitReached();

    let children: ContainerRow[] = [];
    if (container.media_type === 'CAROUSEL') {
      const found = new Map((await findContainers(trx, container.children, true)).map((child) => [child.id, child]));
      children = container.children.map((childId) => {
        const child = found.get(childId);
        if (!child)
          throw socialErrors.invalidParameter(
            'children',
            `The carousel item ${childId} does not exist or is not a carousel item of this account.`,
          );
        // Children may have expired, or been published in another carousel, since the carousel was made.
        const childProblem = unusable(child, now, 'children');
        if (childProblem) throw childProblem;
        return child;
      });
    }

    const { mediaType, productType } = publishedTypes(container);
    const first = children[0];
    const mediaUrl = first ? (first.image_url ?? first.video_url)! : (container.image_url ?? container.video_url)!;
    const mediaId = await insertMedia(
      trx,
      {
        owner_id: accountId,
        caption: container.caption,
        media_type: mediaType,
        media_product_type: productType,
        media_url: mediaUrl,
        thumbnail_url: mediaType === 'VIDEO' ? container.cover_url : null,
        timestamp: now,
        carousel_parent_id: null,
      },
      permalinkOf,
    );
    const childMediaIds: string[] = [];
    for (const child of children) {
      const childMediaId = await insertMedia(
        trx,
        {
          owner_id: accountId,
          caption: '',
          media_type: child.video_url !== null ? 'VIDEO' : 'IMAGE',
          media_product_type: 'FEED',
          media_url: (child.image_url ?? child.video_url)!,
          thumbnail_url: null,
          timestamp: now,
          carousel_parent_id: mediaId,
        },
        // Album children have no page of their own: their permalink is the album's.
        () => permalinkOf(mediaId),
      );
      await markContainerPublished(trx, child.id, childMediaId, now);
      childMediaIds.push(childMediaId);
    }

    // Mentions and tags name other accounts; the owner naming itself is neither a mention nor a tag of note.
    const others = (rows: { id: string }[]) => rows.map((row) => row.id).filter((other) => other !== accountId);
    const mentioned = await findAccountsByUsernames(trx, captionMentions(container.caption));
    const newlyMentioned = await insertCaptionMentions(trx, mediaId, others(mentioned), now);
    // Tags of carousel children are shown on the album: media lists (and the tags edge) leave children out.
    const tagged = [container, ...children].flatMap((row) => row.user_tags.map((tag) => tag.username));
    const taggedIds = others(await findAccountsByUsernames(trx, tagged));
    await insertMediaTags(trx, mediaId, taggedIds, now);

    await markContainerPublished(trx, container.id, mediaId, now);
    // The events of the publishing: each account the caption newly @mentions (media_id only, §6.5), last in the
    // transaction as the log's writers take them (event-log.repository.ts).
    // And the publication itself: the account's media (and the album's children), the containers it used up, the
    // accounts it tags (their tags edge).
    await appendEvents(trx, [
      ...newlyMentioned.map((mentionedId) => mentionEvent(mentionedId, mediaId, null)),
      accountChange('media_published', accountId, [
        entityKey('Media', mediaId),
        ...childMediaIds.map((id) => entityKey('Media', id)),
        ...[container, ...children].map((row) => entityKey('MediaContainer', row.id)),
        ...taggedIds.map((id) => entityKey('Account', id)),
      ]),
    ]);
    return { id: mediaId };
  });
}

async function contentPublishingLimit(
  context: Publishing,
  accountId: string,
  since?: string | number | null,
): Promise<ContentPublishingLimit> {
  const { db, clock, checkAccountId, quotaTotal } = context;
  checkAccountId(accountId, 'get');
  const now = clock();
  let from = new Date(now.getTime() - PUBLISHING_QUOTA_DURATION * SECOND);
  if (since != null && since !== '') {
    const at = parseTimeParameter(since, now);
    const message = 'The parameter since must be a unix timestamp within the last 24 hours.';
    if (at === undefined) throw socialErrors.invalidParameter('since', message);
    const seconds = toUnixSeconds(at);
    if (seconds < toUnixSeconds(now) - PUBLISHING_QUOTA_DURATION || seconds > toUnixSeconds(now)) {
      throw socialErrors.invalidParameter('since', message);
    }
    // Publications at or after `since` (published_at keeps milliseconds; the bound is exclusive).
    from = new Date(seconds * SECOND - 1);
  }
  const quotaUsage = await countPublished(db, accountId, from, now);
  return { quotaUsage, config: { quotaTotal, quotaDuration: PUBLISHING_QUOTA_DURATION } };
}

/** `fn` with its first argument, the context, given. */
function bindContext<C, A extends unknown[], R>(context: C, fn: (context: C, ...args: A) => R): (...args: A) => R {
  return (...args) => fn(context, ...args);
}

/** The status a container shows now: EXPIRED after 24 h (unless published), IN_PROGRESS until processed. */
export function containerStatus(row: Pick<ContainerRow, 'status_code' | 'expires_at' | 'ready_at'>, now: Date): ContainerStatusCode {
  if (row.status_code === 'PUBLISHED' || row.status_code === 'ERROR') return row.status_code;
  if (now.getTime() >= row.expires_at.getTime()) return 'EXPIRED';
  if (now.getTime() < row.ready_at.getTime()) return 'IN_PROGRESS';
  return 'FINISHED';
}

/** Why a container cannot be published (or put in a carousel) now, if it cannot. */
function unusable(row: ContainerRow, now: Date, parameter: 'creation_id' | 'children'): AppError | undefined {
  switch (containerStatus(row, now)) {
    case 'FINISHED':
      return undefined;
    case 'EXPIRED':
      return publishing.expired();
    case 'IN_PROGRESS':
      return publishing.notReady();
    case 'ERROR':
      return publishing.failed();
    case 'PUBLISHED':
      // The platform documents no error for this; a 100 naming the parameter says what happened.
      return socialErrors.invalidParameter(parameter, `The container ${row.id} has already been published.`);
  }
}

function publishedTypes(container: ContainerRow): { mediaType: MediaType; productType: MediaProductType } {
  switch (container.media_type) {
    case 'CAROUSEL':
      return { mediaType: 'CAROUSEL_ALBUM', productType: 'FEED' };
    case 'REELS':
    case 'VIDEO':
      return { mediaType: 'VIDEO', productType: 'REELS' };
    case 'STORIES':
      return { mediaType: container.video_url !== null ? 'VIDEO' : 'IMAGE', productType: 'STORY' };
    case 'IMAGE':
      return { mediaType: 'IMAGE', productType: 'FEED' };
  }
}

/** The platform's shortcode: the media id written in a 64-letter alphabet (as the real platform derives its own). */
export function shortcodeOf(mediaId: string): string {
  let value = BigInt(mediaId);
  let code = '';
  do {
    code = SHORTCODE_ALPHABET[Number(value % 64n)]! + code;
    value /= 64n;
  } while (value > 0n);
  return code;
}

function toContainer(row: ContainerRow, now: Date): MediaContainer {
  return {
    id: row.id,
    accountId: row.account_id,
    mediaType: row.media_type,
    imageUrl: row.image_url,
    videoUrl: row.video_url,
    uploadMediaId: row.upload_media_id,
    caption: row.caption,
    isCarouselItem: row.is_carousel_item,
    children: row.children,
    userTags: row.user_tags,
    collaborators: row.collaborators,
    locationId: row.location_id,
    altText: row.alt_text,
    shareToFeed: row.share_to_feed,
    coverUrl: row.cover_url,
    thumbOffset: row.thumb_offset,
    audioName: row.audio_name,
    statusCode: containerStatus(row, now),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    publishedMediaId: row.published_media_id,
    publishedAt: row.published_at,
  };
}
