import { AD_ACCOUNT_NODE, BUSINESS_NODE, HASHTAG_NODE, MEDIA_NODE, UPCOMING_EVENT_NODE } from '../social-graph/social-node-types.ts';
import { pageName } from './graph-schemas.ts';
import { FIELDS, type GraphOperationDoc, ID, PAGING, PARENT_ONLY, SUCCESS, TIME_WINDOW, query, ref, text } from './social-openapi-parts.ts';

/** The account's edges, documented once and used for `/{account-id}/…` and `/me/…`. */
export const ACCOUNT_EDGES: readonly { edge: string; operations: readonly GraphOperationDoc[] }[] = [
  {
    edge: 'media',
    operations: [
      {
        method: 'get',
        operationId: 'getAccountMedia',
        summary: "Lists the account's media, newest first.",
        description: 'Stories and carousel children excluded; at most the 10,000 most recent are reachable.',
        tag: 'accounts',
        permissions: 'readMedia',
        query: [FIELDS, ...PAGING, ...TIME_WINDOW],
        reply: ref(pageName(MEDIA_NODE)),
      },
      {
        method: 'post',
        operationId: 'createMediaContainer',
        summary: 'Creates a publishing container (publish it with media_publish).',
        description:
          'One of `image_url`, `video_url` or `upload_media_id` (an Area D media_id or media_key), or `children` for a carousel.',
        tag: 'accounts',
        permissions: 'publish',
        form: {
          properties: {
            image_url: text('Address of a JPEG image.'),
            video_url: text('Address of a video (REELS, STORIES).'),
            upload_media_id: text('A media_id or media_key from POST /1.1/media/upload.json, instead of image_url.'),
            media_type: text('CAROUSEL, REELS or STORIES; omitted for a single image or video.'),
            caption: text('The caption.'),
            is_carousel_item: { type: 'boolean', description: 'True for an item of a carousel.' },
            children: text('Container ids of a carousel: a JSON array or a comma-separated list.'),
            user_tags: text('Accounts to tag, JSON: `[{"username":"…","x":0.5,"y":0.5}]`.'),
            collaborators: text('Usernames: a JSON array or a comma-separated list.'),
            location_id: text('A location (page) id.'),
            cover_url: text('Cover image of a reel.'),
            thumb_offset: { type: 'number', description: 'Milliseconds into the video.' },
            share_to_feed: { type: 'boolean', description: 'Reels: also show in the feed.' },
            audio_name: text('Reels: the name of the audio.'),
            alt_text: text('Descriptive text of the image, for accessibility.'),
          },
        },
        reply: ID,
      },
    ],
  },
  {
    edge: 'media_publish',
    operations: [
      {
        method: 'post',
        operationId: 'publishMediaContainer',
        summary: 'Publishes a container; answers the new media id.',
        description: 'At most SOCIAL_PUBLISHING_QUOTA posts per rolling 24 hours (default 100).',
        tag: 'accounts',
        permissions: 'publish',
        form: { properties: { creation_id: text('The container id.') }, required: ['creation_id'] },
        reply: ID,
      },
    ],
  },
  {
    edge: 'insights',
    operations: [
      {
        method: 'get',
        operationId: 'getAccountInsights',
        summary: 'Interaction metrics of the account over a time window.',
        description: 'Paging moves the time window (`paging.previous` / `paging.next`).',
        tag: 'accounts',
        permissions: 'readInsights',
        query: [
          query('metric', { type: 'string' }, 'Comma-separated metric names (reach, follower_count, …).', true),
          query('period', { type: 'string' }, 'day, week, days_28 or lifetime.'),
          query('metric_type', { type: 'string' }, 'time_series or total_value.'),
          query('breakdown', { type: 'string' }, 'Comma-separated breakdowns (with metric_type=total_value).'),
          query('timeframe', { type: 'string' }, 'Demographic metrics: the time frame.'),
          ...TIME_WINDOW,
        ],
        reply: ref('GraphInsightsPage'),
      },
    ],
  },
  {
    edge: 'content_publishing_limit',
    operations: [
      {
        method: 'get',
        operationId: 'getContentPublishingLimit',
        summary: "The account's use of its publishing quota over the last 24 hours.",
        tag: 'accounts',
        permissions: 'readPublishingLimit',
        query: [
          query('fields', { type: 'string' }, 'quota_usage (default) and/or config.'),
          query('since', { type: 'string' }, 'Count from this time (unix seconds).'),
        ],
        reply: ref('GraphPublishingLimit'),
      },
    ],
  },
  {
    edge: 'recently_searched_hashtags',
    operations: [
      {
        method: 'get',
        operationId: 'getRecentlySearchedHashtags',
        summary: 'Hashtags the account searched for within the last 7 days, most recent first.',
        tag: 'accounts',
        permissions: 'readRecentHashtags',
        hosts: PARENT_ONLY,
        query: [FIELDS, query('limit', { type: 'integer', minimum: 1, maximum: 30 }, 'At most 30 (default 25); no paging.')],
        reply: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: ref(HASHTAG_NODE.name) } } },
      },
    ],
  },
  {
    edge: 'upcoming_events',
    operations: [
      {
        method: 'get',
        operationId: 'getUpcomingEvents',
        summary: 'Events the account hosts.',
        tag: 'accounts',
        permissions: 'upcomingEvents',
        hosts: PARENT_ONLY,
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(UPCOMING_EVENT_NODE)),
      },
      {
        method: 'post',
        operationId: 'createUpcomingEvent',
        summary: 'Creates an event the account hosts.',
        tag: 'accounts',
        permissions: 'upcomingEvents',
        hosts: PARENT_ONLY,
        form: {
          properties: {
            title: text('The title.'),
            start_time: text('ISO 8601 or unix seconds.'),
            end_time: text('ISO 8601 or unix seconds.'),
            notification_subtypes: text('A JSON array or a comma-separated list.'),
            notification_target_time: text('When to notify.'),
          },
          required: ['title', 'start_time'],
        },
        reply: ID,
      },
    ],
  },
  {
    edge: 'agencies',
    operations: [
      {
        method: 'get',
        operationId: 'getAgencies',
        summary: 'Businesses that can advertise for the account.',
        tag: 'accounts',
        permissions: 'readAgencies',
        hosts: PARENT_ONLY,
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(BUSINESS_NODE)),
      },
    ],
  },
  {
    edge: 'authorized_adaccounts',
    operations: [
      {
        method: 'get',
        operationId: 'getAuthorizedAdAccounts',
        summary: 'Ad accounts that can advertise for the account, optionally of one business.',
        tag: 'accounts',
        permissions: 'adAccounts',
        hosts: PARENT_ONLY,
        query: [FIELDS, query('business', { type: 'string' }, 'Only ad accounts of this business.'), ...PAGING],
        reply: ref(pageName(AD_ACCOUNT_NODE)),
      },
      {
        method: 'post',
        operationId: 'authorizeAdAccount',
        summary: 'Authorises an ad account of a business to advertise for the account.',
        tag: 'accounts',
        permissions: 'adAccounts',
        hosts: PARENT_ONLY,
        form: {
          properties: { account_id: text('The ad account id.'), business: text('The business id.') },
          required: ['account_id', 'business'],
        },
        reply: SUCCESS,
      },
    ],
  },
  {
    edge: 'stories',
    operations: [
      {
        method: 'get',
        operationId: 'getStories',
        summary: 'Stories of the last 24 hours.',
        tag: 'accounts',
        permissions: 'readStories',
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(MEDIA_NODE)),
      },
    ],
  },
  {
    edge: 'live_media',
    operations: [
      {
        method: 'get',
        operationId: 'getLiveMedia',
        summary: 'Media currently broadcasting live.',
        tag: 'accounts',
        permissions: 'readLiveMedia',
        query: [FIELDS, ...PAGING, ...TIME_WINDOW],
        reply: ref(pageName(MEDIA_NODE)),
      },
    ],
  },
  {
    edge: 'tags',
    operations: [
      {
        method: 'get',
        operationId: 'getTags',
        summary: 'Media in which other users tagged the account (paged by cursors only, no links).',
        tag: 'accounts',
        permissions: 'readTags',
        query: [FIELDS, ...PAGING],
        reply: ref(pageName(MEDIA_NODE)),
      },
    ],
  },
  {
    edge: 'mentions',
    operations: [
      {
        method: 'post',
        operationId: 'replyToMention',
        summary: 'Comments on a media or comment in which the account was @mentioned.',
        description: '`media_id` alone answers on the media (caption mention); with `comment_id`, on that comment.',
        tag: 'accounts',
        permissions: 'createMentionReply',
        form: {
          properties: {
            media_id: text('The media.'),
            comment_id: text('The comment that mentions the account.'),
            message: text('The text.'),
          },
          required: ['media_id', 'message'],
        },
        reply: ID,
      },
    ],
  },
];
