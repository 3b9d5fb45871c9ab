/**
 * media_key prefixes by media category (the reference's `<prefix>_<media_id>`: 3_ image, 16_ animated GIF, 7_ video,
 * 13_ amplify video). A key exists only for an upload that named a category.
 */
export const MEDIA_KEY_PREFIXES: Readonly<Record<string, string>> = {
  tweet_image: '3',
  tweet_gif: '16',
  tweet_video: '7',
  amplify_video: '13',
};

/** The media_key of an upload, or null when it was uploaded without a category. */
export function mediaKeyOf(mediaId: string, category: string | null): string | null {
  const prefix = category === null ? undefined : MEDIA_KEY_PREFIXES[category];
  return prefix === undefined ? null : `${prefix}_${mediaId}`;
}
