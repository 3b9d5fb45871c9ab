import { METADATA_PATH, UPLOAD_PATH } from '../media-upload/media-error-mapper.ts';

/**
 * Area D's paths in OpenAPI 3: POST /1.1/media/upload.json (the simple upload, and the chunked commands INIT, APPEND,
 * FINALIZE), GET /1.1/media/upload.json?command=STATUS, POST /1.1/media/metadata/create.json; both body types the
 * reference accepts, the exact replies, the x-rate-limit-* headers, and the reference's two error bodies
 * (`{"errors":[{code,message}]}` and the older `{"request","error"}`) per status, as
 * rest-adapter/media-upload/media-error-mapper.ts answers them.
 */

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

const CATEGORY = {
  type: 'string',
  description:
    'tweet_image (any spelling); when given, media_key is returned. tweet_video, amplify_video and tweet_gif belong to the ' +
    'chunked upload (command=INIT with media_type; 44 on the simple upload).',
};
const OWNERS = { type: 'string', description: 'Up to 100 comma-separated user ids (1–19 digits each) who may use the media too.' };

const RATE_HEADERS = {
  'x-rate-limit-limit': { description: 'Uploads allowed per window.', schema: { type: 'integer' } },
  'x-rate-limit-remaining': { description: 'Uploads left in the window.', schema: { type: 'integer' } },
  'x-rate-limit-reset': { description: 'Unix time (seconds) when the window resets.', schema: { type: 'integer' } },
};

/** The processing state of an animated GIF or video (both API versions). */
const PROCESSING_INFO = {
  type: 'object',
  required: ['state'],
  properties: {
    state: { type: 'string', enum: ['pending', 'in_progress', 'succeeded', 'failed'] },
    check_after_secs: { type: 'integer' },
    progress_percent: { type: 'integer' },
    error: {
      type: 'object',
      required: ['code', 'name', 'message'],
      properties: { code: { type: 'integer' }, name: { type: 'string' }, message: { type: 'string' } },
    },
  },
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
        "The reference's standard error body. Codes: 38 a parameter missing (media, total_bytes, media_type, media_id, " +
        'segment_index, alt_text); 44 bad parameter (both media and media_data, bad base64, bad media_category, ' +
        'additional_owners, total_bytes, segment_index or command, a segment sent twice, alt text over 1,000 characters); 324 ' +
        'size, type, dimensions or corrupt image, and unknown, expired, foreign or (un)finalized media ids; ' +
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
      description:
        'The older body: content that is not an image at all (text, video, a data: URI) or a media_type not taken, and the ' +
        "chunked upload's size and assembly errors (File size exceeds N bytes., Segment size exceeds N bytes., Segments do " +
        'not add up to provided total file size., a missing segment).',
      required: ['request', 'error'],
      properties: {
        request: { type: 'string', enum: [UPLOAD_PATH, METADATA_PATH] },
        error: { type: 'string', example: 'media type unrecognized.' },
      },
    },
    MediaObject: {
      type: 'object',
      description:
        'A chunked upload (INIT, FINALIZE, STATUS): size after FINALIZE, image or video, processing_info for animated GIFs and videos.',
      required: ['media_id', 'media_id_string', 'expires_after_secs'],
      properties: {
        media_id: { type: 'integer', format: 'int64', description: 'Every digit written (beyond 2^53: read media_id_string).' },
        media_id_string: { type: 'string' },
        media_key: { type: 'string', description: '3_ image, 16_ animated GIF, 7_ video, 13_ amplify video; only with a media_category.' },
        size: { type: 'integer' },
        expires_after_secs: { type: 'integer' },
        image: {
          type: 'object',
          required: ['image_type', 'w', 'h'],
          properties: { image_type: { type: 'string' }, w: { type: 'integer' }, h: { type: 'integer' } },
        },
        video: { type: 'object', required: ['video_type'], properties: { video_type: { type: 'string', enum: ['video/mp4'] } } },
        processing_info: PROCESSING_INFO,
      },
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
        summary: 'Uploads an image (simple upload), or runs a chunked upload command (command=INIT, APPEND, FINALIZE).',
        description:
          'multipart/form-data with the file in part `media` (with or without a filename), or application/x-www-form-urlencoded ' +
          'with base64 `media_data`. media_category and additional_owners may also be sent in the query string. Content is ' +
          'recognised from the bytes: JPEG, PNG, GIF and WEBP, 4–8192 px each way, at most MEDIA_MAX_BYTES (5,242,880). ' +
          'Chunked upload (the only way for animated GIFs and MP4 videos): command=INIT with total_bytes, media_type, ' +
          'media_category, additional_owners → 202; command=APPEND with media_id, segment_index (0–999) and media or media_data ' +
          '(≤ 5,242,880 bytes) → 204; command=FINALIZE with media_id → 200 and the media object (processing_info for GIFs and ' +
          'videos: poll GET command=STATUS). ' +
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
          200: {
            description: 'The uploaded image; for command=FINALIZE the media object.',
            headers: RATE_HEADERS,
            content: { 'application/json': { schema: { anyOf: [ref('UploadedMedia'), ref('MediaObject')] } } },
          },
          202: {
            description: 'command=INIT: the new media id.',
            headers: RATE_HEADERS,
            content: { 'application/json': { schema: ref('MediaObject') } },
          },
          204: { description: 'command=APPEND: the segment is stored (no body).', headers: RATE_HEADERS },
          400: errors('38, 44, 324, 215 — or the older body.', [ref('TwitterErrors'), ref('MediaUnrecognized')]),
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
      get: {
        tags: ['media'],
        operationId: 'mediaUploadStatus',
        summary: 'command=STATUS: the media object of a finalized chunked upload, with processing_info while it is processed.',
        security: [{ UploadAuthorization: [] }],
        parameters: [
          { name: 'command', in: 'query', required: true, schema: { type: 'string', enum: ['STATUS'] } },
          { name: 'media_id', in: 'query', required: true, schema: { type: 'string' } },
        ],
        responses: {
          200: { description: 'The media object.', headers: RATE_HEADERS, content: { 'application/json': { schema: ref('MediaObject') } } },
          400: errors('38, 44, 324, 215.'),
          401: errors('32, 89, 135.'),
          403: errors('220: app-only credentials.'),
          429: { ...errors('88: upload rate limit.'), headers: RATE_HEADERS },
          500: errors('131: internal error.'),
          503: errors('130: over capacity.'),
        },
      },
    },
  };
}

/** The path item of POST /1.1/media/metadata/create.json (alt text). */
export function buildMediaMetadataPath(): { path: string; item: Schema } {
  const errors = (description: string) => ({ description, content: { 'application/json': { schema: ref('TwitterErrors') } } });
  return {
    path: METADATA_PATH,
    item: {
      post: {
        tags: ['media'],
        operationId: 'createMediaMetadata',
        summary: 'Sets the alt text of an uploaded media (uploader or additional owner; at most 1,000 characters).',
        description: 'Container creation (POST /{version}/{account}/media with upload_media_id) shows it as the container’s alt_text.',
        security: [{ UploadAuthorization: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['media_id', 'alt_text'],
                properties: {
                  media_id: { type: 'string' },
                  alt_text: { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 1000 } } },
                },
              },
            },
          },
        },
        responses: {
          200: { description: 'Stored (no body).', headers: RATE_HEADERS },
          400: errors('38 media_id or alt_text missing, 44 too long or not JSON, 324 unknown, expired or foreign media id, 215.'),
          401: errors('32, 89, 135.'),
          403: errors('220: app-only credentials.'),
          429: { ...errors('88: upload rate limit.'), headers: RATE_HEADERS },
          500: errors('131: internal error.'),
          503: errors('130: over capacity.'),
        },
      },
    },
  };
}

/** The v2 media endpoints' components: their `data` replies and the problem body (media-v2-problems.ts). */
export function mediaV2ComponentSchemas(): Record<string, Schema> {
  const image = {
    type: 'object',
    required: ['image_type', 'w', 'h'],
    properties: { image_type: { type: 'string' }, w: { type: 'integer' }, h: { type: 'integer' } },
  };
  return {
    MediaV2Upload: {
      type: 'object',
      description:
        'v2 media: id a string (no media_id number); media_key only with a media_category; processing_info for animated GIFs and videos.',
      required: ['id'],
      properties: {
        id: { type: 'string', pattern: '^[0-9]{1,19}$' },
        media_key: { type: 'string' },
        size: { type: 'integer' },
        expires_after_secs: { type: 'integer' },
        processing_info: PROCESSING_INFO,
        image,
        video: { type: 'object', required: ['video_type'], properties: { video_type: { type: 'string', enum: ['video/mp4'] } } },
      },
    },
    MediaV2Problem: {
      type: 'object',
      description:
        'An RFC 7807 problem as X API v2 sends it: 400 invalid-request (the problems in `errors`, each with `message` and the ' +
        '`parameters` it is about), 404 resource-not-found (unknown or expired upload id), 403 not-authorized-for-resource ' +
        '(another user’s upload) or unsupported-authentication (app-only credentials), 401/429/500/503 with type about:blank.',
      required: ['title', 'detail', 'type'],
      properties: {
        title: { type: 'string' },
        detail: { type: 'string' },
        type: { type: 'string', example: 'https://api.twitter.com/2/problems/invalid-request' },
        status: { type: 'integer' },
        errors: { type: 'array', items: { type: 'object' } },
      },
    },
  };
}

/** The path items of X API v2's media endpoints (rest-adapter/media-upload/media-v2.routes.ts). */
export function buildMediaV2Paths(): { path: string; item: Schema }[] {
  const problem = (description: string) => ({ description, content: { 'application/problem+json': { schema: ref('MediaV2Problem') } } });
  const problems = {
    400: problem('invalid-request: a parameter, a body or media the rules refuse.'),
    401: {
      ...problem('Unauthorized: missing or bad credentials.'),
      headers: { 'WWW-Authenticate': { schema: { type: 'string', example: 'Bearer realm="Tributary", OAuth realm="Tributary"' } } },
    },
    403: problem('unsupported-authentication (app-only credentials), or not-authorized-for-resource (another user’s upload).'),
    429: { ...problem('Too Many Requests: the upload rate limit (shared with the 1.1 endpoints).'), headers: RATE_HEADERS },
    500: problem('Internal Server Error.'),
    503: problem('Service Unavailable (the database is unavailable).'),
  };
  const withId = { ...problems, 404: problem('resource-not-found: an unknown or expired upload id.') };
  const data = (description: string, schema: Schema) => ({
    description,
    headers: RATE_HEADERS,
    content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: schema } } } },
  });
  const idParameter = { name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9]{1,19}$' } };
  const security = [{ UploadAuthorization: [] }];
  const json = (schema: Schema) => ({ required: true, content: { 'application/json': { schema } } });
  return [
    {
      path: '/2/media/upload/initialize',
      item: {
        post: {
          tags: ['media v2'],
          operationId: 'initializeMediaUploadV2',
          summary: 'Opens a chunked upload (the same sessions as 1.1 command=INIT).',
          security,
          requestBody: json({
            type: 'object',
            additionalProperties: false,
            required: ['media_type', 'total_bytes'],
            properties: {
              media_type: { type: 'string', enum: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/pjpeg', 'video/mp4'] },
              total_bytes: { type: 'integer', minimum: 0, maximum: 17_179_869_184 },
              media_category: { type: 'string', enum: ['tweet_image', 'tweet_gif', 'tweet_video', 'amplify_video'] },
              shared: { type: 'boolean' },
              additional_owners: { type: 'array', items: { type: 'string', pattern: '^[0-9]{1,19}$' } },
            },
          }),
          responses: { 200: data('The new upload id.', ref('MediaV2Upload')), ...problems },
        },
      },
    },
    {
      path: '/2/media/upload/{id}/append',
      item: {
        post: {
          tags: ['media v2'],
          operationId: 'appendMediaUploadV2',
          summary: 'Adds one segment (segment_index 0–999, at most 5,242,880 bytes) as multipart, or as JSON with base64.',
          security,
          parameters: [idParameter],
          requestBody: {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['segment_index', 'media'],
                  properties: { segment_index: { type: 'integer' }, media: { type: 'string', format: 'binary' } },
                },
              },
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['segment_index', 'media'],
                  properties: { segment_index: { type: 'integer' }, media: { type: 'string', format: 'byte' } },
                },
              },
            },
          },
          responses: {
            200: data('Stored; the upload takes commands until expires_at.', {
              type: 'object',
              required: ['expires_at'],
              properties: { expires_at: { type: 'integer', description: 'Unix seconds.' } },
            }),
            ...withId,
          },
        },
      },
    },
    {
      path: '/2/media/upload/{id}/finalize',
      item: {
        post: {
          tags: ['media v2'],
          operationId: 'finalizeMediaUploadV2',
          summary: 'Completes a chunked upload: the media, with processing_info for animated GIFs and videos (poll STATUS).',
          description: 'No body is needed; twitter-api-v2 sends `{}`, which is read and ignored.',
          security,
          parameters: [idParameter],
          responses: { 200: data('The media.', ref('MediaV2Upload')), ...withId },
        },
      },
    },
    {
      path: '/2/media/upload',
      item: {
        get: {
          tags: ['media v2'],
          operationId: 'mediaUploadStatusV2',
          summary: 'The state of a finalized upload (command=STATUS, optional): poll every check_after_secs until succeeded or failed.',
          security,
          parameters: [
            { name: 'media_id', in: 'query', required: true, schema: { type: 'string', pattern: '^[0-9]{1,19}$' } },
            { name: 'command', in: 'query', required: false, schema: { type: 'string', enum: ['STATUS'] } },
          ],
          responses: { 200: data('The media.', ref('MediaV2Upload')), ...withId },
        },
        post: {
          tags: ['media v2'],
          operationId: 'uploadMediaV2',
          summary: 'Uploads an image in one request: JSON with base64 `media`, or multipart with the bytes in part `media`.',
          description: 'The older command=INIT|APPEND|FINALIZE form of this path is not served (400 naming the dedicated paths).',
          security,
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['media', 'media_category'],
                  properties: {
                    media: { type: 'string', format: 'byte' },
                    media_category: { type: 'string', enum: ['tweet_image'] },
                    media_type: { type: 'string' },
                    shared: { type: 'boolean' },
                  },
                },
              },
              'multipart/form-data': {
                schema: {
                  type: 'object',
                  required: ['media', 'media_category'],
                  properties: { media: { type: 'string', format: 'binary' }, media_category: { type: 'string', enum: ['tweet_image'] } },
                },
              },
            },
          },
          responses: { 200: data('The uploaded image.', ref('MediaV2Upload')), ...problems },
        },
      },
    },
    {
      path: '/2/media/metadata',
      item: {
        post: {
          tags: ['media v2'],
          operationId: 'createMediaMetadataV2',
          summary: 'Sets the alt text of an uploaded media (uploader or additional owner; at most 1,000 characters).',
          description: 'Only alt_text is kept; the spec’s other metadata keys are refused with a problem saying so.',
          security,
          requestBody: json({
            type: 'object',
            additionalProperties: false,
            required: ['id', 'metadata'],
            properties: {
              id: { type: 'string', pattern: '^[0-9]{1,19}$' },
              metadata: {
                type: 'object',
                required: ['alt_text'],
                properties: { alt_text: { type: 'object', required: ['text'], properties: { text: { type: 'string', maxLength: 1000 } } } },
              },
            },
          }),
          responses: {
            200: data('Stored.', {
              type: 'object',
              required: ['id', 'associated_metadata'],
              properties: {
                id: { type: 'string' },
                associated_metadata: {
                  type: 'object',
                  properties: { alt_text: { type: 'object', properties: { text: { type: 'string' } } } },
                },
              },
            }),
            ...withId,
          },
        },
      },
    },
  ];
}
