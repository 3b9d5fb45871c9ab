import { GraphReplyError, RouteRefusal } from './graph-reply-error.ts';
import { FIXED, type SocialOperations } from './social-operations.ts';
import { jsonParameter, list, numberParameter, optionalBoolean, parseBoolean } from './social-params.ts';
import { REQUEST_PARAMETERS, type RootNode, type SocialRequest } from './social-route-table.ts';
import type { MediaContainerInput } from './generated/operations.ts';

/**
 * The Graph paths' writes: a comment hidden, shown, deleted or replied to, a comment on a media object, and an account's
 * publishing (containers, publishing, upcoming events, ad accounts, replies to mentions) — each a fixed operation whose
 * variables come from the reference's parameters.
 */

/** POST /<comment-id>?hide=…: hides or shows the comment. */
export async function hideComment(ops: SocialOperations, request: SocialRequest, id: string): Promise<unknown> {
  const raw = request.params.hide;
  if (raw === undefined) {
    const attempted = Object.keys(request.params).some((name) => !REQUEST_PARAMETERS.has(name));
    if (attempted) throw new RouteRefusal(ops.errors.unsupportedOperation('post', id));
  }
  const hideValue = raw === undefined ? null : parseBoolean(raw);
  if (hideValue === undefined)
    throw new GraphReplyError(ops.errors.invalidParameter('Invalid parameter', `hide must be true or false, got "${raw}".`));
  const data = await ops.runFixed(request, FIXED.hideComment, { id, hide: hideValue });
  return { success: data.hideComment.success };
}

/** DELETE /<comment-id>. */
export async function deleteComment(ops: SocialOperations, request: SocialRequest, id: string): Promise<unknown> {
  const data = await ops.runFixed(request, FIXED.deleteComment, { id });
  return { success: data.deleteComment.success };
}

/** POST /<comment-id>/replies. */
export async function replyToComment(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const data = await ops.runFixed(request, FIXED.replyToComment, { id: root.segment, message: request.params.message ?? null });
  return { id: data.replyToComment.id };
}

/** POST /<media-id>/comments. */
export async function commentOnMedia(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const data = await ops.runFixed(request, FIXED.createMediaComment, { mediaId: root.segment, message: request.params.message ?? null });
  return { id: data.createMediaComment.id };
}

/** POST /<account>/media: a publishing container from the reference's parameters. */
export async function createContainer(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const p = request.params;
  const input: MediaContainerInput = {
    imageUrl: p.image_url ?? null,
    videoUrl: p.video_url ?? null,
    uploadMediaId: p.upload_media_id ?? null,
    mediaType: p.media_type ?? null,
    caption: p.caption ?? null,
    isCarouselItem: optionalBoolean('is_carousel_item', p.is_carousel_item),
    children: p.children === undefined ? null : list(p.children),
    userTags: p.user_tags === undefined ? null : jsonParameter('user_tags', p.user_tags),
    collaborators: p.collaborators === undefined ? null : list(p.collaborators),
    locationId: p.location_id ?? null,
    coverUrl: p.cover_url ?? null,
    thumbOffset: p.thumb_offset === undefined ? null : numberParameter('thumb_offset', p.thumb_offset),
    shareToFeed: optionalBoolean('share_to_feed', p.share_to_feed),
    audioName: p.audio_name ?? null,
    altText: p.alt_text ?? null,
  };
  const data = await ops.runFixed(request, FIXED.createMediaContainer, { accountId: root.segment, input });
  return { id: data.createMediaContainer.id };
}

/** POST /<account>/media_publish. */
export async function publishContainer(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const data = await ops.runFixed(request, FIXED.publishMediaContainer, {
    accountId: root.segment,
    creationId: request.params.creation_id ?? null,
  });
  return { id: data.publishMediaContainer.id };
}

/** POST /<account>/upcoming_events. */
export async function createUpcomingEvent(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const p = request.params;
  const data = await ops.runFixed(request, FIXED.createUpcomingEvent, {
    accountId: root.segment,
    input: {
      title: p.title ?? null,
      startTime: p.start_time ?? null,
      endTime: p.end_time ?? null,
      notificationSubtypes: p.notification_subtypes === undefined ? null : list(p.notification_subtypes),
      notificationTargetTime: p.notification_target_time ?? null,
    },
  });
  return { id: data.createUpcomingEvent.id };
}

/** POST /<account>/authorized_adaccounts. */
export async function authorizeAdAccount(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const data = await ops.runFixed(request, FIXED.authorizeAdAccount, {
    accountId: root.segment,
    adAccountId: request.params.account_id ?? null,
    business: request.params.business ?? null,
  });
  return { success: data.authorizeAdAccount.success };
}

/** POST /<account>/mentions: a reply to a comment or caption that @mentioned the account. */
export async function replyToMention(ops: SocialOperations, request: SocialRequest, root: RootNode): Promise<unknown> {
  const data = await ops.runFixed(request, FIXED.replyToMention, {
    accountId: root.segment,
    mediaId: request.params.media_id ?? null,
    commentId: request.params.comment_id ?? null,
    message: request.params.message ?? null,
  });
  return { id: data.replyToMention.id };
}
