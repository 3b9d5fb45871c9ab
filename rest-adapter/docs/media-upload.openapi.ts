import { UPLOAD_PATH } from '../media-upload/media-error-mapper.ts';

/**
 * Area D's one path, POST /1.1/media/upload.json, in OpenAPI 3: both body types the reference accepts, the exact reply,
 * the x-rate-limit-* headers, and the reference's two error bodies (`{"errors":[{code,message}]}` and, for media it
 * cannot recognise, `{"request","error"}`) per status, as rest-adapter/media-upload/media-error-mapper.ts answers them.
 */

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const CATEGORY = {
  type: 'string',
  description:
    'tweet_image (any spelling); when given, media_key is returned. tweet_video, amplify_video and tweet_gif belong to the ' +
    'chunked upload, which is not offered (44).',
};
const OWNERS = { type: 'string', description: 'Up to 100 comma-separated user ids (1–19 digits each) who may use the media too.' };

const RATE_HEADERS = {
  'x-rate-limit-limit': { description: 'Uploads allowed per window.', schema: { type: 'integer' } },
  'x-rate-limit-remaining': { description: 'Uploads left in the window.', schema: { type: 'integer' } },
  'x-rate-limit-reset': { description: 'Unix time (seconds) when the window resets.', schema: { type: 'integer' } },
};

/** Components of the upload: its reply and its error bodies. */
export function mediaComponentSchemas(): Record<string, Schema> {
  return {
    UploadedMedia: {
      type: 'object',
      required: ['media_id', 'media_id_string', 'size', 'expires_after_secs', 'image'],
      properties: {
        media_id: {
          type: 'integer',
          format: 'int64',
          description: 'A 19-digit snowflake written with every digit (beyond 2^53: use media_id_string where numbers are doubles).',
        },
        media_id_string: { type: 'string' },
        media_key: { type: 'string', description: '`3_<media_id>`; only when media_category was given.' },
        size: { type: 'integer', description: 'Bytes received.' },
        expires_after_secs: { type: 'integer', description: 'Seconds during which media_id and media_key are accepted.' },
        image: {
          type: 'object',
          required: ['image_type', 'w', 'h'],
          properties: {
            image_type: { type: 'string', enum: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] },
            w: { type: 'integer' },
            h: { type: 'integer' },
          },
        },
      },
    },
    TwitterErrors: {
      type: 'object',
      description:
        "The reference's standard error body. Codes: 38 media missing; 44 bad parameter (both media and media_data, bad " +
        'base64, bad media_category or additional_owners, chunked commands); 324 size, type, dimensions or corrupt image; ' +
        '215 missing or malformed credentials; 32 bad signature or replayed nonce; 89 invalid, revoked or expired token; ' +
        '135 oauth_timestamp out of bounds; 220 app-only credentials; 88 rate limit; 130 over capacity; 131 internal error.',
      required: ['errors'],
      properties: {
        errors: {
          type: 'array',
          minItems: 1,
          items: { type: 'object', required: ['code', 'message'], properties: { code: { type: 'integer' }, message: { type: 'string' } } },
        },
      },
    },
    MediaUnrecognized: {
      type: 'object',
      description: 'The older body, for content that is not an image at all (text, video, a data: URI).',
      required: ['request', 'error'],
      properties: { request: { type: 'string', enum: [UPLOAD_PATH] }, error: { type: 'string', example: 'media type unrecognized.' } },
    },
  };
}

/** The path item of POST /1.1/media/upload.json. */
export function buildMediaUploadPath(): { path: string; item: Schema } {
  const errors = (description: string, schemas: Schema[] = [ref('TwitterErrors')]) => ({
    description,
    content: { 'application/json': { schema: schemas.length === 1 ? schemas[0] : { anyOf: schemas } } },
  });
  return {
    path: UPLOAD_PATH,
    item: {
      post: {
        tags: ['media'],
        operationId: 'uploadMedia',
        summary: 'Uploads an image (simple upload); the media_id is accepted by container creation until it expires.',
        description:
          'multipart/form-data with the file in part `media` (with or without a filename), or application/x-www-form-urlencoded ' +
          'with base64 `media_data`. media_category and additional_owners may also be sent in the query string. Content is ' +
          'recognised from the bytes: JPEG, PNG, GIF and WEBP, 4–8192 px each way, at most MEDIA_MAX_BYTES (5,242,880). ' +
          'Authentication in user context: OAuth 1.0a (HMAC-SHA1) or an OAuth 2.0 bearer user token (the social graph’s tokens).',
        security: [{ UploadAuthorization: [] }],
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['media'],
                properties: { media: { type: 'string', format: 'binary' }, media_category: CATEGORY, additional_owners: OWNERS },
              },
            },
            'application/x-www-form-urlencoded': {
              schema: {
                type: 'object',
                required: ['media_data'],
                properties: {
                  media_data: { type: 'string', format: 'byte', description: 'The image in base64.' },
                  media_category: CATEGORY,
                  additional_owners: OWNERS,
                },
              },
            },
          },
        },
        responses: {
          200: { description: 'The uploaded image.', headers: RATE_HEADERS, content: { 'application/json': { schema: ref('UploadedMedia') } } },
          400: errors('38, 44, 324, 215 — or the unrecognised-media body.', [ref('TwitterErrors'), ref('MediaUnrecognized')]),
          401: {
            ...errors('32 bad signature or replayed nonce, 89 invalid token, 135 timestamp out of bounds.'),
            headers: { 'WWW-Authenticate': { schema: { type: 'string', example: 'OAuth realm="Tributary"' } } },
          },
          403: errors('220: app-only credentials cannot upload.'),
          429: { ...errors('88: upload rate limit (MEDIA_RATE_UPLOADS_PER_WINDOW per MEDIA_RATE_WINDOW_SECS).'), headers: RATE_HEADERS },
          500: errors('131: internal error.'),
          503: errors('130: over capacity (the database is unavailable).'),
        },
      },
    },
  };
}
