import { socialErrors } from '../../shared/social-graph/social-errors.ts';

/** The caption's and tags' limits, which these errors name. */
export const CAPTION_MAX_CHARS = 2200;
export const CAPTION_MAX_HASHTAGS = 30;
export const MEDIA_MAX_TAGS = 20;

/** The platform's content-publishing errors (its table: code, subcode, user title, user message). */
export const publishing = {
  unknownMediaType: (mediaType: string) =>
    socialErrors.publishingError(100, 2207023, 'Invalid parameter', 'Unknown media type', `The media type ${mediaType} is unknown.`),
  carouselSize: () =>
    socialErrors.publishingError(
      100,
      2207028,
      'Invalid parameter',
      'Carousel validation failed',
      "Your post won't be shared as a carousel. Carousels need at least 2 photos/videos and no more than 10 photos/videos.",
    ),
  // 2207040 is the platform's "too many tags" (at most 20 @-tags per media): used for caption @mentions and user_tags.
  tooManyTags: () =>
    socialErrors.publishingError(
      100,
      2207040,
      'Invalid parameter',
      'Too many tags',
      `Cannot use more than ${MEDIA_MAX_TAGS} tags per created media.`,
    ),
  // 36004 / 2207010 is the platform's caption error; its limits are 2,200 characters and 30 hashtags.
  captionTooLong: () =>
    socialErrors.publishingError(
      36004,
      2207010,
      'The caption is too long.',
      'Caption too long',
      `The caption can have at most ${CAPTION_MAX_CHARS.toLocaleString('en-US')} characters.`,
    ),
  tooManyHashtags: () =>
    socialErrors.publishingError(
      36004,
      2207010,
      'The caption has too many hashtags.',
      'Too many hashtags',
      `The caption can have at most ${CAPTION_MAX_HASHTAGS} hashtags.`,
    ),
  // Nothing is fetched here, so a URL the platform could never fetch (not http(s)) gets its download-failure error.
  mediaDownload: (url: string) =>
    socialErrors.publishingError(
      9004,
      2207052,
      'Media download has failed.',
      'Media download has failed',
      `The media could not be fetched from this URI: ${url}. Please check the URI and try again.`,
    ),
  thumbOffset: () =>
    socialErrors.publishingError(
      1,
      2207057,
      'An unknown error has occurred.',
      'Invalid thumbnail offset',
      'Thumbnail offset must be greater than or equal to 0 and less than video duration.',
    ),
  notFound: (id: string) =>
    socialErrors.publishingError(
      24,
      2207006,
      'The requested resource does not exist',
      'Media not found',
      `The media with id ${id} cannot be found.`,
    ),
  expired: () =>
    socialErrors.publishingError(
      -2,
      2207020,
      'The media has expired.',
      'Media expired',
      'The media you are trying to access has expired. Please try to upload again.',
    ),
  notReady: () =>
    socialErrors.publishingError(
      9007,
      2207027,
      'Media ID is not available',
      'Media not ready for publishing',
      'The media is not ready for publishing, please wait for a moment',
    ),
  failed: () =>
    socialErrors.publishingError(
      -1,
      2207032,
      'Create media fail, please try to re-create media',
      'Create media fail',
      'Failed to create a media container. Try again.',
    ),
  limitReached: () =>
    socialErrors.publishingError(
      9,
      2207042,
      'Application request limit reached',
      'Max posts limit reached',
      'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
      'limit',
    ),
};
