import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaTables, UploadRow } from '../../../subgraphs/shared/media-store/media-upload.repository.ts';
import { expectGraphError, invalidParameter } from '../../support/graph-error-expectations.ts';
import type { GraphqlErrorJson } from '../../support/graphql-client.ts';
import { uploadMultipart, type UploadedMediaJson } from '../../support/graphql-upload-client.ts';
import { eventually } from '../../support/eventually.ts';
import { HANG_MS } from '../../support/hang-bounds.ts';
import { fixture } from '../../support/image-fixtures.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { createTestBlobStore, type TestBlobStore } from '../../support/test-blob-store.ts';
import { startDistributedTestSystem, startTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * An uploaded image's id used elsewhere: a publishing container (Area C) takes `upload_media_id` — a media_id or a
 * media_key — instead of image_url, over REST (POST /v21.0/{account}/media) and GraphQL (createMediaContainer). The id
 * lives MEDIA_EXPIRES_AFTER_SECS (60 here, to make expiry obvious); afterwards it is refused and the sweeper (every second
 * here) removes the bytes of uploads no container took. Blobs go to a fresh blob store per system (a directory, or a key
 * prefix in the run's S3 bucket), looked up directly.
 *
 * Both gateway modes run: embedded, and distributed (the media subgraph is its own server and the one sweeping; the
 * accounts subgraph claims uploads through the shared database). The clock is ours and only moves forward within a mode;
 * it never moves more than a few minutes, so the fixture's one-hour tokens stay valid.
 *
 * A request that gets no answer within REQUEST_DEADLINE_MS fails its test, and the mode's later tests then fail at once
 * instead of each waiting for its own timeout (a server that stopped answering once keeps hanging).
 */

const T0 = new Date('2026-11-20T12:00:00Z');
let clock = T0;
const now = () => clock;
const at = (secondsAfterT0: number) => new Date(T0.getTime() + secondsAfterT0 * 1000);

const EXPIRES_AFTER_SECS = 60;
/** Only a hang reaches either: a request answers, and the sweeper (every second here) sweeps, well within them. */
const REQUEST_DEADLINE_MS = HANG_MS;
const SWEEP_DEADLINE_MS = HANG_MS;
/** How long afterAll waits for a system to close before it lets the run go on (a system that stopped answering may never). */
const CLOSE_DEADLINE_MS = 3_000;

const MODES = [
  { mode: 'embedded', start: (env: Record<string, string>) => startTestSystem(env, { now }) },
  { mode: 'distributed', start: (env: Record<string, string>) => startDistributedTestSystem(env, { now }) },
] as const;

const CREATE_CONTAINER = `mutation Create($accountId: ID!, $input: MediaContainerInput!) {
  createMediaContainer(accountId: $accountId, input: $input) { id statusCode mediaType }
}`;

interface Reply {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

/** The Graph error envelope of an invalid parameter (code 100), with the www-authenticate header the REST host adds. */
function expectInvalidParameter(reply: Reply, userMessage: string): void {
  expectGraphError(reply, invalidParameter(userMessage));
}

/** The same refusal as the gateway passes it on from the accounts subgraph. */
function invalidUploadMediaId(message: string): GraphqlErrorJson {
  return {
    message,
    path: ['createMediaContainer'],
    extensions: {
      reason: 'INVALID_PARAMETER',
      parameter: 'upload_media_id',
      fieldViolations: [{ field: 'upload_media_id', description: message }],
      code: 'BAD_USER_INPUT',
      serviceName: 'accounts',
    },
  };
}

const expiredMessage = (mediaId: string, expiredAt: Date) =>
  `The media id ${mediaId} expired at ${expiredAt.toISOString()}; upload the image again.`;
const notFoundMessage = (reference: string) => `The media id ${reference} was not found.`;
const notOwnerMessage = (userId: string, mediaId: string) => `User id ${userId} doesn't own media id ${mediaId}.`;

describe.each(MODES)('upload_media_id in containers, expiry and sweeping ($mode gateway)', ({ start }) => {
  let system: TestSystem;
  let world: SocialFixture;
  let blobs: TestBlobStore;
  let bluebottle: string;
  let roaster: string;
  /** Set once a request got no answer: later requests of this mode fail at once. */
  let stuck: string | undefined;

  /** Runs one request with a deadline. */
  async function guarded<T>(label: string, send: (signal: AbortSignal) => Promise<T>): Promise<T> {
    if (stuck !== undefined) throw new Error(`${label}: not sent, the system stopped answering earlier (${stuck})`);
    try {
      return await send(AbortSignal.timeout(REQUEST_DEADLINE_MS));
    } catch (error) {
      if ((error as Error).name === 'TimeoutError') {
        stuck = `${label} got no answer within ${REQUEST_DEADLINE_MS} ms`;
        throw new Error(stuck, { cause: error });
      }
      throw error;
    }
  }

  async function rest(method: string, path: string, options: { token?: string; json?: Record<string, unknown> } = {}): Promise<Reply> {
    return guarded(`${method} ${path}`, async (signal) => {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
      if (options.json !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(new URL(path, system.restUrl), {
        method,
        headers,
        ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
        signal,
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      return { status: response.status, text, body, headers: response.headers };
    });
  }

  async function graphql(query: string, variables: Record<string, unknown>, token: string) {
    return guarded('createMediaContainer', async (signal) => {
      const response = await fetch(system.gatewayUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, variables }),
        signal,
      });
      const text = await response.text();
      const parsed = JSON.parse(text) as { data?: any; errors?: GraphqlErrorJson[] };
      return { status: response.status, text, data: parsed.data, errors: parsed.errors };
    });
  }

  async function upload(token: string, options: { mediaCategory?: string; additionalOwners?: string[] } = {}): Promise<UploadedMediaJson> {
    const reply = await guarded('uploadMedia', (signal) =>
      uploadMultipart(system.gatewayUrl, fixture('image.png'), { token, ...options, signal }),
    );
    expect(reply.errors, reply.text).toBeUndefined();
    return reply.data!.uploadMedia;
  }

  /** POST /v21.0/{account}/media with upload_media_id (and whatever else is given). */
  const createByRest = (accountId: string, token: string, params: Record<string, unknown>) =>
    rest('POST', `/v21.0/${accountId}/media`, { token, json: params });
  const createByGraphql = (accountId: string, token: string, input: Record<string, unknown>) =>
    graphql(CREATE_CONTAINER, { accountId, input }, token);

  function expectContainer(reply: Reply): string {
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ id: expect.stringMatching(/^\d{1,19}$/) });
    return reply.body.id as string;
  }
  function expectGraphqlContainer(reply: { errors?: GraphqlErrorJson[]; data?: any; text: string }): string {
    expect(reply.errors, reply.text).toBeUndefined();
    expect(reply.data.createMediaContainer).toEqual({
      id: expect.stringMatching(/^\d{1,19}$/),
      statusCode: 'FINISHED',
      mediaType: 'IMAGE',
    });
    return reply.data.createMediaContainer.id as string;
  }

  const media = () => system.database.db.withTables<MediaTables>();
  const row = (id: string): Promise<UploadRow> =>
    media().selectFrom('media.upload').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const blobKey = async (id: string) => (await row(id)).blob_key;
  const exists = (key: string) => blobs.exists(key);

  /** Waits until the upload's bytes are gone and its row says swept; resolves to that state. */
  async function sweptState(id: string): Promise<{ fileGone: boolean; sweptAt: Date | null }> {
    const key = await blobKey(id);
    return eventually(
      async () => {
        const state = { fileGone: !(await exists(key)), sweptAt: (await row(id)).swept_at };
        return state.fileGone && state.sweptAt !== null && state;
      },
      `upload ${id} swept: its bytes gone and its row marked swept`,
      { withinMs: SWEEP_DEADLINE_MS },
    );
  }

  beforeAll(async () => {
    clock = T0;
    stuck = undefined;
    blobs = await createTestBlobStore();
    system = await start({ ...blobs.env, MEDIA_SWEEP_INTERVAL_SECS: '1', MEDIA_EXPIRES_AFTER_SECS: String(EXPIRES_AFTER_SECS) });
    world = await createSocialFixture(system.database, { now });
    bluebottle = world.accounts.bluebottle;
    roaster = world.accounts.roaster;
  });

  afterAll(async () => {
    // A system that stopped answering may never finish draining; do not let it hold the run.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([system?.close(), new Promise((resolve) => (timer = setTimeout(resolve, CLOSE_DEADLINE_MS)))]);
    clearTimeout(timer);
    await blobs?.close();
  });

  // -- clock: T0 → T0 + 61 s ------------------------------------------------------------------------------------------

  it('sweeps the bytes of an expired upload no container took, and leaves unexpired ones', async () => {
    clock = at(0);
    const expiring = await upload(world.tokens.own);
    expect(expiring.expiresAfterSecs).toBe(EXPIRES_AFTER_SECS);
    clock = at(30);
    const younger = await upload(world.tokens.own);
    const expiringKey = await blobKey(expiring.mediaId);
    const youngerKey = await blobKey(younger.mediaId);
    expect(await exists(expiringKey)).toBe(true);
    expect(await exists(youngerKey)).toBe(true);
    expect((await row(expiring.mediaId)).swept_at).toBeNull();

    clock = at(61);
    expect(await sweptState(expiring.mediaId)).toEqual({ fileGone: true, sweptAt: at(61) });
    expect(await exists(youngerKey)).toBe(true);
    expect((await row(younger.mediaId)).swept_at).toBeNull();
  });

  // -- clock: T0 + 100 s (checked before any upload is claimed) -------------------------------------------------------

  it('refuses upload_media_id together with image_url, over REST and GraphQL', async () => {
    clock = at(100);
    const uploaded = await upload(world.tokens.own);
    const both = 'Only one of image_url and upload_media_id can be given.';
    expectInvalidParameter(
      await createByRest(bluebottle, world.tokens.own, {
        upload_media_id: uploaded.mediaId,
        image_url: 'https://cdn.example.com/photos/latte.jpg',
      }),
      both,
    );
    const graphqlBoth = await createByGraphql(bluebottle, world.tokens.own, {
      uploadMediaId: uploaded.mediaId,
      imageUrl: 'https://cdn.example.com/photos/latte.jpg',
    });
    expect(graphqlBoth.errors).toEqual([invalidUploadMediaId(both)]);
    expect(graphqlBoth.data).toBeNull();
  });

  // -- clock: T0 + 120 s … T0 + 130 s ---------------------------------------------------------------------------------

  it('creates a container from a media_id over REST and from a media_key over GraphQL, and publishes the upload', async () => {
    clock = at(120);
    const byId = await upload(world.tokens.own);
    const container = expectContainer(
      await createByRest(bluebottle, world.tokens.own, { upload_media_id: byId.mediaId, caption: 'Uploaded latte' }),
    );
    const status = await rest('GET', `/v21.0/${container}?fields=status_code,media_type`, { token: world.tokens.own });
    expect(status.body).toEqual({ status_code: 'FINISHED', media_type: 'IMAGE', id: container });

    const published = await rest('POST', `/v21.0/${bluebottle}/media_publish`, {
      token: world.tokens.own,
      json: { creation_id: container },
    });
    expect(published.status, published.text).toBe(200);
    expect(published.body).toEqual({ id: expect.stringMatching(/^\d{1,19}$/) });
    const read = await rest('GET', `/v21.0/${published.body.id}?fields=media_url,media_type,caption`, { token: world.tokens.own });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({
      media_url: expect.stringMatching(/^https?:\/\/[^/]+\/media\/\d+\.png$/),
      media_type: 'IMAGE',
      caption: 'Uploaded latte',
      id: published.body.id,
    });
    expect(read.body.media_url.endsWith(`/media/${byId.mediaId}.png`)).toBe(true);

    const byKey = await upload(world.tokens.own, { mediaCategory: 'tweet_image' });
    expect(byKey.mediaKey).toBe(`3_${byKey.mediaId}`);
    expectGraphqlContainer(await createByGraphql(bluebottle, world.tokens.own, { uploadMediaId: byKey.mediaKey }));
    // The key over REST, the id over GraphQL: both forms on both transports.
    const another = await upload(world.tokens.own, { mediaCategory: 'tweet_image' });
    expectContainer(await createByRest(bluebottle, world.tokens.own, { upload_media_id: another.mediaKey }));
    const third = await upload(world.tokens.own);
    expectGraphqlContainer(await createByGraphql(bluebottle, world.tokens.own, { uploadMediaId: third.mediaId }));
  });

  it('lets an additional owner use another user’s upload, and refuses everyone else', async () => {
    clock = at(125);
    const shared = await upload(world.tokens.roasterOwn, { additionalOwners: [bluebottle] });
    expectContainer(await createByRest(bluebottle, world.tokens.own, { upload_media_id: shared.mediaId }));
    const sharedForGraphql = await upload(world.tokens.roasterOwn, { additionalOwners: [`${world.accounts.fanOne},${bluebottle}`] });
    expectGraphqlContainer(await createByGraphql(bluebottle, world.tokens.own, { uploadMediaId: sharedForGraphql.mediaId }));

    const roastersOnly = await upload(world.tokens.roasterOwn);
    const rest400 = await createByRest(bluebottle, world.tokens.own, { upload_media_id: roastersOnly.mediaId });
    expectInvalidParameter(rest400, notOwnerMessage(bluebottle, roastersOnly.mediaId));
    const refused = await createByGraphql(bluebottle, world.tokens.own, { uploadMediaId: roastersOnly.mediaId });
    expect(refused.errors).toEqual([invalidUploadMediaId(notOwnerMessage(bluebottle, roastersOnly.mediaId))]);
    expect(refused.data).toBeNull();
    // The uploader itself may use it (the token in the query string this time).
    const query = new URLSearchParams({ access_token: world.tokens.roasterOwn, upload_media_id: roastersOnly.mediaId });
    expectContainer(await rest('POST', `/v21.0/${roaster}/media?${query}`));
  });

  it('lets a page role on the parent-platform host use the account’s own upload', async () => {
    clock = at(126);
    const uploaded = await upload(world.tokens.own);
    const reply = await guarded('POST parent media', async (signal) => {
      const response = await fetch(new URL(`/v21.0/${bluebottle}/media`, system.socialParentUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${world.tokens.parent}`, 'content-type': 'application/json' },
        body: JSON.stringify({ upload_media_id: uploaded.mediaId }),
        signal,
      });
      return { status: response.status, text: await response.text() };
    });
    expect(reply.status, reply.text).toBe(200);
    expect(JSON.parse(reply.text)).toEqual({ id: expect.stringMatching(/^\d{1,19}$/) });
  });

  it('refuses an unknown media id and a media key of an upload made without a category', async () => {
    clock = at(130);
    const uploaded = await upload(world.tokens.own);
    const unknown = (BigInt(uploaded.mediaId) + 4_194_304n * 1000n).toString();
    expectInvalidParameter(await createByRest(bluebottle, world.tokens.own, { upload_media_id: unknown }), notFoundMessage(unknown));
    expectInvalidParameter(await createByRest(bluebottle, world.tokens.own, { upload_media_id: 'latte' }), notFoundMessage('latte'));
    const keyless = `3_${uploaded.mediaId}`;
    expectInvalidParameter(await createByRest(bluebottle, world.tokens.own, { upload_media_id: keyless }), notFoundMessage(keyless));
    const graphqlUnknown = await createByGraphql(bluebottle, world.tokens.own, { uploadMediaId: unknown });
    expect(graphqlUnknown.errors).toEqual([invalidUploadMediaId(notFoundMessage(unknown))]);

    // None of these refusals used the upload up: it still makes a container.
    expectContainer(await createByRest(bluebottle, world.tokens.own, { upload_media_id: uploaded.mediaId }));
  });

  // -- clock: T0 + 200 s … T0 + 261 s ---------------------------------------------------------------------------------

  it('accepts an id one second before it expires and refuses it at and after expiry, over REST and GraphQL', async () => {
    const uploadedAt = at(200);
    clock = uploadedAt;
    const [restEarly, graphqlEarly, restLate, graphqlLate] = [
      await upload(world.tokens.own),
      await upload(world.tokens.own, { mediaCategory: 'tweet_image' }),
      await upload(world.tokens.own),
      await upload(world.tokens.own, { mediaCategory: 'tweet_image' }),
    ];
    const expiresAt = at(200 + EXPIRES_AFTER_SECS);

    clock = at(200 + EXPIRES_AFTER_SECS - 1);
    expectContainer(await createByRest(bluebottle, world.tokens.own, { upload_media_id: restEarly.mediaId }));
    expectGraphqlContainer(await createByGraphql(bluebottle, world.tokens.own, { uploadMediaId: graphqlEarly.mediaKey }));

    clock = expiresAt;
    expectInvalidParameter(
      await createByRest(bluebottle, world.tokens.own, { upload_media_id: restLate.mediaId }),
      expiredMessage(restLate.mediaId, expiresAt),
    );
    const refused = await createByGraphql(bluebottle, world.tokens.own, { uploadMediaId: graphqlLate.mediaKey });
    expect(refused.errors).toEqual([invalidUploadMediaId(expiredMessage(graphqlLate.mediaId, expiresAt))]);
    expect(refused.data).toBeNull();

    clock = at(200 + EXPIRES_AFTER_SECS + 1);
    expectInvalidParameter(
      await createByRest(bluebottle, world.tokens.own, { upload_media_id: restLate.mediaId }),
      expiredMessage(restLate.mediaId, expiresAt),
    );
    // A container having taken it does not extend the id's life.
    expectInvalidParameter(
      await createByRest(bluebottle, world.tokens.own, { upload_media_id: restEarly.mediaId }),
      expiredMessage(restEarly.mediaId, expiresAt),
    );
  });

  // -- clock: T0 + 300 s → T0 + 361 s ---------------------------------------------------------------------------------

  it('keeps the bytes of an upload a container took after its id expires, while the sweeper removes the others', async () => {
    clock = at(300);
    const taken = await upload(world.tokens.own);
    const unused = await upload(world.tokens.own);
    expectContainer(await createByRest(bluebottle, world.tokens.own, { upload_media_id: taken.mediaId }));
    const takenKey = await blobKey(taken.mediaId);
    expect(await exists(takenKey)).toBe(true);
    expect(await exists(await blobKey(unused.mediaId))).toBe(true);

    clock = at(300 + EXPIRES_AFTER_SECS + 1);
    // Once the unused upload is swept, the sweeper has passed this expiry; the taken one must still be whole.
    expect(await sweptState(unused.mediaId)).toEqual({ fileGone: true, sweptAt: at(361) });
    expect(await exists(takenKey)).toBe(true);
    expect((await row(taken.mediaId)).swept_at).toBeNull();
  });
});
