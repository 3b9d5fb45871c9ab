import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { APP_TOKEN_PREFIX, type AccessTokenCredentials, type ConsumerCredentials } from '../../../lib/auth/oauth1/oauth-credentials.ts';
import { createOAuthCredentialStore } from '../../../subgraphs/index.ts';
import { uploadJson, uploadMultipart } from '../graphql-upload-client.ts';
import { fixture } from '../image-fixtures.ts';
import { mediaFormData, mediaUploadUrl, oauth1Authorization, sendMediaRequest } from '../media-client.ts';
import type { TestSystem } from '../test-system.ts';
import { cellName, expectNoLeak, MATRIX_NOW, shown, type NotApplicableCell } from './matrix.ts';
import { runSocialCell, SOCIAL_DOORS, type SocialCell, type SocialDoor } from './social-cells.ts';
import { outcomeLabel, type SocialErrorSpec } from './social-errors.ts';
import { rule, type SocialOperation } from './social-operations.ts';
import { actorToken, type Host, type SocialWorld } from './social-world.ts';

/**
 * Area D's auth matrix: the upload on each of its doors (REST multipart and urlencoded, GraphQL multipart and JSON) ×
 * every credential condition of OAuth 1.0a and of bearer tokens → the reference's codes (215, 32, 89, 135, 220; see
 * /work/shared/reference/media-upload.md §4 and §6), nothing stored and no media object in a refusal.
 */

export type MediaDoor = 'REST multipart' | 'REST urlencoded' | 'GraphQL multipart' | 'GraphQL JSON';
export const MEDIA_DOORS: readonly MediaDoor[] = ['REST multipart', 'REST urlencoded', 'GraphQL multipart', 'GraphQL JSON'];

type MediaReason = 'AUTH_MISSING' | 'SIGNATURE_INVALID' | 'TOKEN_INVALID' | 'TIMESTAMP_OUT_OF_BOUNDS' | 'APP_ONLY';

/** The reference's answer to each refusal: HTTP status, code and message (§4), and the GraphQL code of the same error. */
const REFUSALS: Record<MediaReason, { status: number; code: number; message: string; graphql: string }> = {
  AUTH_MISSING: { status: 400, code: 215, message: 'Bad Authentication data.', graphql: 'UNAUTHENTICATED' },
  SIGNATURE_INVALID: { status: 401, code: 32, message: 'Could not authenticate you.', graphql: 'UNAUTHENTICATED' },
  TOKEN_INVALID: { status: 401, code: 89, message: 'Invalid or expired token.', graphql: 'UNAUTHENTICATED' },
  TIMESTAMP_OUT_OF_BOUNDS: { status: 401, code: 135, message: 'Timestamp out of bounds.', graphql: 'UNAUTHENTICATED' },
  APP_ONLY: { status: 403, code: 220, message: 'Your credentials do not allow access to this resource.', graphql: 'FORBIDDEN' },
};

/** What a reply to a refused upload must not hold: any part of an uploaded media object. */
const MEDIA_OBJECT_KEYS = [
  'media_id',
  'mediaId',
  'media_key',
  'mediaKey',
  'image_type',
  'imageType',
  'expires_after_secs',
  'expiresAfterSecs',
];

/** The credentials the conditions are made of. */
export interface MediaCredentials {
  app: ConsumerCredentials;
  /** bluebottle's access token for `app`. */
  token: AccessTokenCredentials;
  /** Another app, and bluebottle's access token for it. */
  otherApp: ConsumerCredentials;
  otherAppToken: AccessTokenCredentials;
  revokedToken: AccessTokenCredentials;
  appOnlyBearer: string;
}

/** The URL and, for urlencoded bodies, the body parameters an OAuth 1.0a client signs. */
interface Signing {
  url: string;
  data?: Record<string, string>;
}

interface MediaCondition {
  label: string;
  authorization(world: SocialWorld, credentials: MediaCredentials, signing: Signing): string | undefined;
  expected: { kind: 'allowed' } | { kind: 'refused'; reason: MediaReason };
  /** The same signed request is sent twice: the first is accepted, the replay is the cell. */
  replay?: boolean;
}

const now = () => Math.floor(MATRIX_NOW.getTime() / 1000);
type Sign = {
  consumer?: ConsumerCredentials;
  secret?: string;
  token?: AccessTokenCredentials | null;
  tokenSecret?: string;
  timestamp?: number;
  omit?: string[];
};

/** An OAuth 1.0a header signed by the independent oauth-1.0a package (bluebottle's token for `app` by default). */
function oauth(credentials: MediaCredentials, signing: Signing, options: Sign = {}): string {
  const consumer = options.consumer ?? credentials.app;
  const token = options.token === undefined ? credentials.token : options.token;
  return oauth1Authorization({
    consumer: { key: consumer.consumerKey, secret: options.secret ?? consumer.consumerSecret },
    token: token === null ? undefined : { key: token.token, secret: options.tokenSecret ?? token.tokenSecret },
    url: signing.url,
    timestamp: options.timestamp ?? now(),
    ...(signing.data && { data: signing.data }),
    ...(options.omit && { omit: options.omit }),
  });
}

const bearer = (token: string) => `Bearer ${token}`;
const refused = (reason: MediaReason) => ({ kind: 'refused' as const, reason });
const ALLOWED = { kind: 'allowed' as const };

const CONDITIONS: readonly MediaCondition[] = [
  // OAuth 2.0 bearer user tokens: the social graph's tokens (one identity across Areas B–D, README).
  { label: "with bluebottle's own-login bearer token", authorization: (world) => bearer(world.fixture.tokens.own), expected: ALLOWED },
  {
    label: "with ana's parent-platform bearer token (the other login type is a user token too)",
    authorization: (world) => bearer(world.fixture.tokens.parent),
    expected: ALLOWED,
  },
  { label: 'without credentials', authorization: () => undefined, expected: refused('AUTH_MISSING') },
  { label: 'with Basic authentication', authorization: () => 'Basic dXNlcjpwYXNzd29yZA==', expected: refused('AUTH_MISSING') },
  { label: 'with "Bearer" and no token', authorization: () => 'Bearer', expected: refused('AUTH_MISSING') },
  { label: 'with a malformed bearer token', authorization: () => bearer('not-a-token'), expected: refused('TOKEN_INVALID') },
  {
    label: 'with a badly signed bearer token (an issued token with its last character changed)',
    authorization: (world) => bearer(`${world.fixture.tokens.own.slice(0, -1)}${world.fixture.tokens.own.endsWith('A') ? 'B' : 'A'}`),
    expected: refused('TOKEN_INVALID'),
  },
  {
    label: 'with an expired bearer token',
    authorization: (world) => bearer(world.fixture.tokens.expired),
    expected: refused('TOKEN_INVALID'),
  },
  {
    label: 'with a revoked bearer token',
    authorization: (world) => bearer(world.fixture.tokens.revoked),
    expected: refused('TOKEN_INVALID'),
  },
  {
    label: 'with an app-only bearer token',
    authorization: (_world, credentials) => bearer(credentials.appOnlyBearer),
    expected: refused('APP_ONLY'),
  },
  {
    label: 'with an app-only-shaped bearer token nobody issued',
    authorization: () => bearer(`${APP_TOKEN_PREFIX}${randomBytes(30).toString('base64url')}`),
    expected: refused('TOKEN_INVALID'),
  },
  // OAuth 1.0a user context.
  {
    label: "with an OAuth 1.0a signature of bluebottle's access token",
    authorization: (_world, credentials, signing) => oauth(credentials, signing),
    expected: ALLOWED,
  },
  {
    label: 'with an OAuth 1.0a signature made with a wrong consumer secret',
    authorization: (_world, credentials, signing) => oauth(credentials, signing, { secret: 'not-the-consumer-secret' }),
    expected: refused('SIGNATURE_INVALID'),
  },
  {
    label: 'with an OAuth 1.0a signature made with a wrong token secret',
    authorization: (_world, credentials, signing) => oauth(credentials, signing, { tokenSecret: 'not-the-token-secret' }),
    expected: refused('SIGNATURE_INVALID'),
  },
  {
    label: 'with an OAuth 1.0a signature of an unknown consumer key',
    authorization: (_world, credentials, signing) =>
      oauth(credentials, signing, { consumer: { ...credentials.app, consumerKey: 'NoSuchConsumerKey0123456' } }),
    expected: refused('SIGNATURE_INVALID'),
  },
  {
    label: 'with an OAuth 1.0a signature of an unknown oauth_token',
    authorization: (world, credentials, signing) =>
      oauth(credentials, signing, {
        token: { ...credentials.token, token: `${world.ids.bluebottle}-NoSuchTokenNoSuchTokenNoSuchTokenNoSuchTo` },
      }),
    expected: refused('TOKEN_INVALID'),
  },
  {
    label: 'with an OAuth 1.0a signature of a revoked access token',
    authorization: (_world, credentials, signing) => oauth(credentials, signing, { token: credentials.revokedToken }),
    expected: refused('TOKEN_INVALID'),
  },
  {
    label: "with an OAuth 1.0a signature pairing bluebottle's token of another app with this app's keys",
    authorization: (_world, credentials, signing) => oauth(credentials, signing, { token: credentials.otherAppToken }),
    expected: refused('TOKEN_INVALID'),
  },
  {
    label: 'with an OAuth 1.0a header without oauth_nonce (malformed)',
    authorization: (_world, credentials, signing) => oauth(credentials, signing, { omit: ['oauth_nonce'] }),
    expected: refused('AUTH_MISSING'),
  },
  {
    label: 'with an OAuth 1.0a header naming the PLAINTEXT signature method',
    authorization: (_world, credentials, signing) =>
      oauth(credentials, signing).replace('oauth_signature_method="HMAC-SHA1"', 'oauth_signature_method="PLAINTEXT"'),
    expected: refused('SIGNATURE_INVALID'),
  },
  {
    label: 'with an OAuth 1.0a timestamp ten minutes old',
    authorization: (_world, credentials, signing) => oauth(credentials, signing, { timestamp: now() - 600 }),
    expected: refused('TIMESTAMP_OUT_OF_BOUNDS'),
  },
  {
    label: 'with an OAuth 1.0a timestamp ten minutes ahead',
    authorization: (_world, credentials, signing) => oauth(credentials, signing, { timestamp: now() + 600 }),
    expected: refused('TIMESTAMP_OUT_OF_BOUNDS'),
  },
  {
    label: 'with a replayed OAuth 1.0a request (same nonce and timestamp)',
    authorization: (_world, credentials, signing) => oauth(credentials, signing),
    expected: refused('SIGNATURE_INVALID'),
    replay: true,
  },
  {
    label: 'with a consumer-only OAuth 1.0a signature (app-only, no oauth_token)',
    authorization: (_world, credentials, signing) => oauth(credentials, signing, { token: null }),
    expected: refused('APP_ONLY'),
  },
];

export interface MediaCell {
  name: string;
  door: MediaDoor;
  condition: MediaCondition;
}

export function mediaCells(door: MediaDoor): { cells: MediaCell[]; notApplicable: NotApplicableCell[] } {
  const request = door.startsWith('REST') ? `POST /1.1/media/upload.json (${door.slice(5)})` : `uploadMedia (${door.slice(8)})`;
  return {
    cells: CONDITIONS.map((condition) => ({
      name: cellName(
        `${door}: ${request}`,
        condition.label,
        condition.expected.kind === 'allowed' ? 'allowed' : `refused ${REFUSALS[condition.expected.reason].code}`,
      ),
      door,
      condition,
    })),
    notApplicable: [
      {
        name: `${door}: ${request} with an expired OAuth 1.0a access token`,
        reason: 'OAuth 1.0a access tokens do not expire; the timestamp window (135) is their time bound',
      },
      {
        name: `${door}: ${request} with a token missing a permission`,
        reason: 'the v1.1 upload asks for user context only; the reference names no permission or scope',
      },
      {
        name: `${door}: ${request} with the token of the wrong owner`,
        reason: 'an upload makes a new object; ownership is checked where its id is used (the container cells)',
      },
    ],
  };
}

export interface MediaMatrix {
  credentials: MediaCredentials;
  run(cell: MediaCell): Promise<void>;
  /** An upload by `token` (a social bearer token), with these additional owners: its media_id. */
  upload(token: string, additionalOwners?: string[]): Promise<string>;
}

export async function createMediaMatrix(system: TestSystem, world: SocialWorld): Promise<MediaMatrix> {
  const store = createOAuthCredentialStore(system.database, () => MATRIX_NOW);
  const app = await store.createConsumer('auth matrix app');
  const otherApp = await store.createConsumer('auth matrix other app');
  const revokedToken = await store.issueAccessToken(app.consumerKey, world.ids.bluebottle);
  await store.revokeAccessToken(revokedToken.token);
  const credentials: MediaCredentials = {
    app,
    token: await store.issueAccessToken(app.consumerKey, world.ids.bluebottle),
    otherApp,
    otherAppToken: await store.issueAccessToken(otherApp.consumerKey, world.ids.bluebottle),
    revokedToken,
    appOnlyBearer: await store.issueAppToken(app.consumerKey),
  };
  const image = fixture('image.png');
  const base64 = image.toString('base64');
  const uploadUrl = mediaUploadUrl(system.restUrl);
  const uploads = async () =>
    Number((await sql<{ n: number }>`select count(*)::int as n from media.upload`.execute(system.database.db)).rows[0]!.n);

  async function send(
    door: MediaDoor,
    authorization: string | undefined,
  ): Promise<{ status: number; text: string; headers?: Headers; data?: any; errors?: any }> {
    const auth = authorization === undefined ? {} : { authorization };
    switch (door) {
      case 'REST multipart':
        return sendMediaRequest(uploadUrl, {
          ...auth,
          body: mediaFormData([{ name: 'media', bytes: image, filename: 'image.png', contentType: 'image/png' }]),
        });
      case 'REST urlencoded':
        return sendMediaRequest(uploadUrl, { ...auth, body: new URLSearchParams({ media_data: base64 }) });
      case 'GraphQL multipart':
        return uploadMultipart(system.gatewayUrl, image, auth);
      case 'GraphQL JSON':
        return uploadJson(system.gatewayUrl, base64, auth);
    }
  }

  return {
    credentials,
    async upload(token, additionalOwners) {
      const form = mediaFormData([
        { name: 'media', bytes: image, filename: 'image.png', contentType: 'image/png' },
        ...(additionalOwners ? [{ name: 'additional_owners', value: additionalOwners.join(',') }] : []),
      ]);
      const reply = await sendMediaRequest(uploadUrl, { authorization: bearer(token), body: form });
      expect(reply.status, shown(reply.status, reply.text)).toBe(200);
      return reply.body.media_id_string as string;
    },
    async run(cell) {
      const { door, condition } = cell;
      // What the client signs: the URL it sends to, and an urlencoded body's parameters (multipart and JSON bodies never).
      const signing: Signing = door.startsWith('REST')
        ? { url: uploadUrl, ...(door === 'REST urlencoded' && { data: { media_data: base64 } }) }
        : { url: system.gatewayUrl };
      const authorization = condition.authorization(world, credentials, signing);
      if (condition.replay) {
        const first = await send(door, authorization);
        expect(first.status, `the first of the replayed requests: ${shown(first.status, first.text)}`).toBe(200);
        expect(first.errors, shown(first.status, first.text)).toBeUndefined();
      }
      const before = await uploads();
      const reply = await send(door, authorization);
      if (condition.expected.kind === 'allowed') {
        expect(reply.status, shown(reply.status, reply.text)).toBe(200);
        expect(reply.errors, shown(reply.status, reply.text)).toBeUndefined();
        expect(reply.text, shown(reply.status, reply.text)).toMatch(
          door.startsWith('REST') ? /"media_id_string":"\d+"/ : /"mediaIdString":"\d+"/,
        );
        expect(await uploads()).toBe(before + 1);
        return;
      }
      const refusal = REFUSALS[condition.expected.reason];
      if (door.startsWith('REST')) {
        expect(reply.status, shown(reply.status, reply.text)).toBe(refusal.status);
        expect(reply.headers!.get('content-type')).toMatch(/^application\/json\b/);
        expect(reply.text).toBe(JSON.stringify({ errors: [{ code: refusal.code, message: refusal.message }] }));
        if (refusal.status === 401) expect(reply.headers!.get('www-authenticate')).toMatch(/^OAuth\b/);
      } else {
        expect(reply.status, shown(reply.status, reply.text)).toBe(200);
        expect(reply.errors, shown(reply.status, reply.text)).toEqual([
          {
            message: refusal.message,
            path: ['uploadMedia'],
            extensions: { reason: condition.expected.reason, twitterCode: refusal.code, code: refusal.graphql, serviceName: 'media' },
          },
        ]);
        expect(reply.data).toBeNull();
      }
      expectNoLeak(reply.text, MEDIA_OBJECT_KEYS);
      expect(await uploads(), 'the refused upload stored something').toBe(before);
    },
  };
}

/**
 * The wrong owner of an upload (README, Area D "Expiry and use"; reference §1.2): container creation accepts an upload's
 * id from its uploader, or for or by an additional owner — the token's user or the account — and refuses anyone else's
 * with `User id <x> doesn't own media id <y>.` (Graph 100 on REST, INVALID_PARAMETER on GraphQL). Run on each social door.
 */
export function uploadContainerCells(door: SocialDoor, matrix: () => MediaMatrix): SocialCell[] {
  const operation: SocialOperation = {
    key: 'account.media.create.upload',
    area: 'C',
    label: {
      rest: 'POST /v25.0/{account-id}/media with upload_media_id',
      graphql: 'createMediaContainer(accountId, input: { uploadMediaId })',
    },
    own: rule([], false),
    parent: rule([], false),
    target: async () => ({}),
    rest: (t) => ({ method: 'POST', path: `/v25.0/${t.account}/media`, params: { upload_media_id: t.upload!, caption: 'AM upload' } }),
    graphql: (t) => ({
      query:
        'mutation Container($id: ID!, $upload: String) { createMediaContainer(accountId: $id, input: { uploadMediaId: $upload, caption: "AM upload" }) { id } }',
      variables: { id: t.account, upload: t.upload },
    }),
    secrets: () => [],
    reads: false,
    wrongOwner: {},
  };
  const upload =
    (who: 'bluebottle' | 'roaster', additionalOwners?: (world: SocialWorld) => string[]) => async (world: SocialWorld, host: Host) => ({
      account: world.ids.bluebottle,
      // The user the product names in its refusal: the token's (bluebottle's account, or ana on the parent-platform host).
      actor: host === 'own' ? world.ids.bluebottle : world.ids.ana,
      upload: await matrix().upload(
        who === 'bluebottle' ? world.fixture.tokens.own : world.fixture.tokens.roasterOwn,
        additionalOwners?.(world),
      ),
    });
  const request = `${door.label}: ${operation.label[door.transport]}`;
  const cases: { label: string; target: SocialCell['target']; expected: SocialCell['expected'] }[] = [
    { label: "of bluebottle's own upload", target: upload('bluebottle'), expected: { kind: 'allowed', control: false } },
    {
      label: "of roaster's upload that names bluebottle in additional_owners",
      target: upload('roaster', (world) => [world.ids.bluebottle]),
      expected: { kind: 'allowed', control: false },
    },
    {
      label: "of roaster's upload (bluebottle is neither its uploader nor an additional owner)",
      target: upload('roaster'),
      expected: {
        kind: 'refused',
        error: {
          kind: 'invalidParameter',
          parameter: 'upload_media_id',
          message: (t) => `User id ${t.actor} doesn't own media id ${t.upload}.`,
        },
      },
    },
  ];
  return cases.map(({ label, target, expected }) => ({
    kind: 'wrong-owner' as const,
    name: cellName(
      request,
      `with the media id ${label}`,
      expected.kind === 'allowed' ? 'allowed' : `refused ${outcomeLabel((expected as { error: SocialErrorSpec }).error, door.transport)}`,
    ),
    op: operation,
    door,
    token: actorToken(door.host),
    ...(target && { target }),
    expected,
  }));
}

/**
 * Declares Area D's tests on the world and runner the file's beforeAll made: each upload door × every credential
 * condition, and the container cells on every social door.
 */
export function defineMediaCells(world: () => SocialWorld, matrix: () => MediaMatrix): void {
  describe.each(MEDIA_DOORS)('%s', (door) => {
    const { cells, notApplicable } = mediaCells(door);
    // One at a time: each cell compares the number of stored uploads before and after its request.
    it.each(cells.map((cell) => [cell.name, cell] as const))('%s', (_name, cell) => matrix().run(cell));
    // Kept in the report as skipped cells, each saying why the condition cannot arise for the upload.
    it.skip.each(notApplicable.map((cell) => [`${cell.name} — not applicable: ${cell.reason}`] as const))('%s', () => {});
  });
  describe.each(Object.values(SOCIAL_DOORS))('container creation from an upload, $label', (door) => {
    const cells = uploadContainerCells(door, matrix);
    it.each(cells.map((cell) => [cell.name, cell] as const))('%s', (_name, cell) => runSocialCell(world(), cell));
  });
}
