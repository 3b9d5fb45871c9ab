import { socialErrors } from '../../shared/social-graph/social-errors.ts';
import type { ContainerMediaType, StoredUserTag } from '../../shared/social-graph/social-tables.ts';
import type { CreateContainerInput } from './account-edges.types.ts';
import { CAPTION_MAX_CHARS, CAPTION_MAX_HASHTAGS, MEDIA_MAX_TAGS, publishing } from './publishing-errors.ts';

/** The parameter rules of POST /<account>/media that need no database (the carousel's children are checked at creation). */

export const CAROUSEL_MIN_CHILDREN = 2;
export const CAROUSEL_MAX_CHILDREN = 10;
export const COLLABORATORS_MAX = 3;
export const ALT_TEXT_MAX_CHARS = 1000;
const CONTAINER_MEDIA_TYPES: readonly ContainerMediaType[] = ['IMAGE', 'VIDEO', 'CAROUSEL', 'REELS', 'STORIES'];
const USERNAME = /^[A-Za-z0-9._]{1,30}$/;
const HASHTAG_IN_TEXT = /#[\p{L}\p{N}_]+/gu;

/** Placeholder image URL of a draft whose image is an upload, replaced by the upload's URL once claimed. */
export const UPLOAD_PENDING = 'upload:pending';

export interface ContainerDraft {
  mediaType: ContainerMediaType;
  imageUrl: string | null;
  videoUrl: string | null;
  uploadMediaId: string | null;
  caption: string;
  isCarouselItem: boolean;
  children: string[];
  userTags: StoredUserTag[];
  collaborators: string[];
  locationId: string | null;
  altText: string | null;
  shareToFeed: boolean | null;
  coverUrl: string | null;
  thumbOffset: number | null;
  audioName: string | null;
}

/** The parameter rules of POST /<account>/media that need no database; the carousel's children are checked after. */
export function validateContainerInput(input: CreateContainerInput): ContainerDraft {
  const media = containerMedia(input);
  const { mediaType, imageUrl, videoUrl, uploadMediaId, isCarouselItem } = media;
  const children = carouselChildren(input, mediaType);
  const caption = checkedCaption(input);
  const userTags = checkedUserTags(input, media);
  const collaborators = checkedCollaborators(input, media);
  const locationId = given(input.locationId);
  if (locationId !== null && !/^\d{1,20}$/.test(locationId)) {
    throw socialErrors.invalidParameter('location_id', 'location_id must be the numeric id of a location page.');
  }
  const { coverUrl, shareToFeed, audioName } = reelParameters(input, media);
  const thumbOffset = checkedThumbOffset(input, media);
  const altText = checkedAltText(input, media);
  return {
    mediaType,
    imageUrl,
    videoUrl,
    uploadMediaId,
    caption,
    isCarouselItem,
    children,
    userTags,
    collaborators,
    locationId,
    altText,
    shareToFeed,
    coverUrl,
    thumbOffset,
    audioName,
  };
}

/** What a container holds, and what the other rules ask of it. */
interface ContainerMedia {
  mediaType: ContainerMediaType;
  imageUrl: string | null;
  videoUrl: string | null;
  uploadMediaId: string | null;
  isCarouselItem: boolean;
  isVideo: boolean;
  isImage: boolean;
  /** A reel: REELS, or a stand-alone legacy VIDEO (published as a reel, as the platform now does with every video). */
  isReel: boolean;
}

function given(value: string | null | undefined): string | null {
  return value == null || value.trim() === '' ? null : value.trim();
}

/** media_type, the media's URLs or upload, and whether it is a carousel item: checked against each other. */
function containerMedia(input: CreateContainerInput): ContainerMedia {
  const requested = given(input.mediaType);
  if (requested !== null && !(CONTAINER_MEDIA_TYPES as readonly string[]).includes(requested)) throw publishing.unknownMediaType(requested);
  const uploadMediaId = given(input.uploadMediaId);
  if (uploadMediaId !== null && given(input.imageUrl) !== null) {
    throw socialErrors.invalidParameter('upload_media_id', 'Only one of image_url and upload_media_id can be given.');
  }
  // An uploaded image stands in for image_url in every rule; its URL is known once the upload is claimed.
  const imageUrl = given(input.imageUrl) ?? (uploadMediaId !== null ? UPLOAD_PENDING : null);
  const videoUrl = given(input.videoUrl);
  const isCarouselItem = input.isCarouselItem === true;

  if (imageUrl !== null && videoUrl !== null) {
    throw socialErrors.invalidParameter('video_url', 'Only one of image_url and video_url can be given.');
  }
  const mediaType = (requested ?? 'IMAGE') as ContainerMediaType;
  checkMediaOfType(mediaType, imageUrl, videoUrl, isCarouselItem);
  if (isCarouselItem && (mediaType === 'REELS' || mediaType === 'STORIES')) {
    // The platform: reels cannot appear in carousels; stories are never part of one.
    throw socialErrors.invalidParameter('is_carousel_item', `A ${mediaType} container cannot be a carousel item.`);
  }
  for (const url of [imageUrl, videoUrl])
    if (url !== null && url !== UPLOAD_PENDING && !isHttpUrl(url)) throw publishing.mediaDownload(url);
  return {
    mediaType,
    imageUrl,
    videoUrl,
    uploadMediaId,
    isCarouselItem,
    isVideo: videoUrl !== null,
    isImage: imageUrl !== null,
    isReel: mediaType === 'REELS' || (mediaType === 'VIDEO' && !isCarouselItem),
  };
}

/**
 * Which media the container holds, by media_type: CAROUSEL takes its media from children; REELS and VIDEO need a
 * video; STORIES either; no media_type means an image (a video without one is refused: the platform retired plain
 * VIDEO posts, and only a carousel item may still say VIDEO).
 */
function checkMediaOfType(mediaType: ContainerMediaType, imageUrl: string | null, videoUrl: string | null, isCarouselItem: boolean): void {
  switch (mediaType) {
    case 'CAROUSEL':
      if (imageUrl !== null || videoUrl !== null) {
        throw socialErrors.invalidParameter(
          imageUrl !== null ? 'image_url' : 'video_url',
          'A CAROUSEL container takes its media from children, not from image_url or video_url.',
        );
      }
      if (isCarouselItem) throw socialErrors.invalidParameter('is_carousel_item', 'A CAROUSEL container cannot be a carousel item.');
      break;
    case 'REELS':
    case 'VIDEO':
      if (imageUrl !== null) throw socialErrors.invalidParameter('image_url', `A ${mediaType} container takes video_url, not image_url.`);
      if (videoUrl === null) throw socialErrors.missingParameter('video_url');
      break;
    case 'STORIES':
      if (imageUrl === null && videoUrl === null) throw socialErrors.missingParameter('image_url');
      break;
    case 'IMAGE':
      if (videoUrl !== null) {
        throw socialErrors.invalidParameter('media_type', 'A video needs media_type REELS or STORIES (or VIDEO for a carousel item).');
      }
      if (imageUrl === null) throw socialErrors.missingParameter('image_url');
      break;
  }
}

/** A carousel's children: 2 to 10 distinct ids; no other container has any. */
function carouselChildren(input: CreateContainerInput, mediaType: ContainerMediaType): string[] {
  const children = [...(input.children ?? [])].map((id) => String(id).trim());
  if (mediaType === 'CAROUSEL') {
    if (children.length === 0) throw socialErrors.missingParameter('children');
    if (children.length < CAROUSEL_MIN_CHILDREN || children.length > CAROUSEL_MAX_CHILDREN) throw publishing.carouselSize();
    const duplicate = children.find((id, index) => children.indexOf(id) !== index);
    if (duplicate !== undefined) throw socialErrors.invalidParameter('children', `The carousel item ${duplicate} is given more than once.`);
  } else if (children.length > 0) {
    throw socialErrors.invalidParameter('children', 'children can only be given with media_type CAROUSEL.');
  }
  return children;
}

function checkedCaption(input: CreateContainerInput): string {
  const caption = input.caption ?? '';
  if ([...caption].length > CAPTION_MAX_CHARS) throw publishing.captionTooLong();
  if ((caption.match(HASHTAG_IN_TEXT) ?? []).length > CAPTION_MAX_HASHTAGS) throw publishing.tooManyHashtags();
  if (captionMentions(caption, false).length > MEDIA_MAX_TAGS) throw publishing.tooManyTags();
  return caption;
}

/** User tags: on the media that shows people (not on a carousel container: its items carry them). */
function checkedUserTags(input: CreateContainerInput, { mediaType, isImage }: ContainerMedia): StoredUserTag[] {
  const userTags: StoredUserTag[] = [];
  // GraphQL takes user_tags as JSON, so its shape is checked here, with the other rules of the parameter.
  if (input.userTags !== undefined && input.userTags !== null && !Array.isArray(input.userTags)) {
    throw socialErrors.invalidParameter('user_tags', 'user_tags must be a JSON array of {username, x, y}.');
  }
  const tags: readonly Record<string, unknown>[] = ((input.userTags as readonly unknown[] | null | undefined) ?? []).map((tag) =>
    typeof tag === 'object' && tag !== null ? (tag as Record<string, unknown>) : {},
  );
  if (tags.length > 0 && mediaType === 'CAROUSEL') {
    throw socialErrors.invalidParameter('user_tags', 'Tag people on the carousel items, not on the CAROUSEL container.');
  }
  if (tags.length > MEDIA_MAX_TAGS) throw publishing.tooManyTags();
  tags.forEach((tag, index) => {
    const username = typeof tag?.username === 'string' ? tag.username.replace(/^@/, '') : '';
    if (!USERNAME.test(username)) throw socialErrors.invalidParameter('user_tags', `user_tags[${index}].username must be a username.`);
    const stored: StoredUserTag = { username };
    for (const axis of ['x', 'y'] as const) {
      const value = tag[axis];
      // Photo tags sit at a point of the image; video and story tags may go without one.
      if (value == null) {
        if (isImage && mediaType !== 'STORIES')
          throw socialErrors.invalidParameter('user_tags', `user_tags[${index}].${axis} is required for an image.`);
        continue;
      }
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
        throw socialErrors.invalidParameter('user_tags', `user_tags[${index}].${axis} must be a number from 0 to 1.`);
      }
      stored[axis] = value;
    }
    userTags.push(stored);
  });
  return userTags;
}

/** Collaborators: invited on posts and reels (not on stories, nor on an item inside a carousel). */
function checkedCollaborators(input: CreateContainerInput, { mediaType, isCarouselItem }: ContainerMedia): string[] {
  const collaborators = [...(input.collaborators ?? [])].map((name) => String(name).trim().replace(/^@/, ''));
  if (collaborators.length > 0 && (mediaType === 'STORIES' || isCarouselItem)) {
    throw socialErrors.invalidParameter('collaborators', 'Collaborators can be invited on feed posts, carousels and reels only.');
  }
  if (collaborators.length > COLLABORATORS_MAX) {
    throw socialErrors.invalidParameter('collaborators', `A post can have at most ${COLLABORATORS_MAX} collaborators.`);
  }
  collaborators.forEach((name, index) => {
    if (!USERNAME.test(name)) throw socialErrors.invalidParameter('collaborators', `collaborators[${index}] must be a username.`);
  });
  return collaborators;
}

/** Reel-only parameters. */
function reelParameters(
  input: CreateContainerInput,
  { isReel }: ContainerMedia,
): Pick<ContainerDraft, 'coverUrl' | 'shareToFeed' | 'audioName'> {
  const coverUrl = given(input.coverUrl);
  if (coverUrl !== null) {
    if (!isReel) throw socialErrors.invalidParameter('cover_url', 'cover_url can only be given for REELS.');
    if (!isHttpUrl(coverUrl)) throw publishing.mediaDownload(coverUrl);
  }
  const shareToFeed = input.shareToFeed ?? null;
  if (shareToFeed !== null && !isReel) throw socialErrors.invalidParameter('share_to_feed', 'share_to_feed can only be given for REELS.');
  const audioName = given(input.audioName);
  if (audioName !== null && !isReel) throw socialErrors.invalidParameter('audio_name', 'audio_name can only be given for REELS.');
  return { coverUrl, shareToFeed, audioName };
}

function checkedThumbOffset(input: CreateContainerInput, { isVideo }: ContainerMedia): number | null {
  const thumbOffset = input.thumbOffset ?? null;
  if (thumbOffset !== null) {
    if (!isVideo) throw socialErrors.invalidParameter('thumb_offset', 'thumb_offset can only be given for a video.');
    if (!Number.isInteger(thumbOffset))
      throw socialErrors.invalidParameter('thumb_offset', 'thumb_offset must be a whole number of milliseconds.');
    // The video's length is unknown offline; only the lower bound of the platform's rule can be checked.
    if (thumbOffset < 0 || thumbOffset > 2_147_483_647) throw publishing.thumbOffset();
  }
  return thumbOffset;
}

/** Alt text describes an image in the feed (single images and carousel images; not stories or videos). */
function checkedAltText(input: CreateContainerInput, { mediaType, isImage }: ContainerMedia): string | null {
  const altText = input.altText == null || input.altText === '' ? null : input.altText;
  if (altText !== null) {
    if (!isImage || mediaType === 'STORIES')
      throw socialErrors.invalidParameter('alt_text', 'alt_text can only be given for an image post or carousel image.');
    if ([...altText].length > ALT_TEXT_MAX_CHARS) {
      throw socialErrors.invalidParameter('alt_text', `alt_text can have at most ${ALT_TEXT_MAX_CHARS} characters.`);
    }
  }
  return altText;
}

function isHttpUrl(text: string): boolean {
  // The platform asks for URLs in the US-ASCII character set; anything else, or another scheme, cannot be fetched.
  if (!/^[\x21-\x7e]+$/.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

// An @ that starts a word (not inside an e-mail address); usernames are letters, digits, '.' and '_', at most 30.
const MENTION_IN_TEXT = /(?<![\p{L}\p{N}_.@])@([A-Za-z0-9._]{1,30})/gu;

/** Usernames @mentioned in a caption (distinct unless `distinct` is false), without the '@' and trailing dots. */
export function captionMentions(caption: string, distinct = true): string[] {
  const names = [...caption.matchAll(MENTION_IN_TEXT)].map((match) => match[1]!.replace(/\.+$/, '')).filter((name) => name !== '');
  return distinct ? [...new Set(names.map((name) => name.toLowerCase()))] : names;
}
