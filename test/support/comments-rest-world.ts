import { afterEach, beforeAll, expect } from 'vitest';
import type { LoginType } from '../../lib/auth/social-auth/social-token.service.ts';
import { createSocialTokens } from '../../subgraphs/index.ts';
import type { MediaInput, SocialGraphBuilder } from '../../subgraphs/shared/social-graph/social-graph-builder.ts';
import { expiredToken } from './graph-error-expectations.ts';
import type { RestClient, RestReply } from './rest-client.ts';
import {
  OWN_PERMISSIONS,
  PARENT_PERMISSIONS,
  useSocialWorld,
  type CommentThread,
  type SocialFixture,
  type SocialTestWorld,
} from './social-fixture.ts';

/**
 * The world of the comments REST tests (Area B over the Graph-style REST paths, test/e2e/comments/*.rest.test.ts), on
 * both hosts: the own-login host (restUrl, a token of the professional account bluebottle) and the parent-platform host
 * (socialParentUrl, a token of ana, who has a role on bluebottle's and roaster's pages). Expected permission lists are
 * written out from the reference (§1.6, §1.8, §2.2, §4), not taken from the product's table.
 *
 * The social graph's clock is driven by the tests (`setClock`), so that new comments have known timestamps and expired
 * tokens known dates.
 */

export const T0 = Date.parse('2026-11-02T10:00:00.000Z');
let current = T0;
/** The social graph's clock: T0 unless a test moved it. */
export const clock = () => new Date(current);
/** Moves the social graph's clock to `ms` (epoch milliseconds); useCommentsWorld puts it back at T0 after each test. */
export const setClock = (ms: number) => {
  current = ms;
};

export const GRAPH_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+0000$/;
export const DIGITS = /^\d+$/;

/** A fixture timestamp: the fixture's comments are whole hours on 2026-11-01. */
export const at = (hour: number) => `2026-11-01T${String(hour).padStart(2, '0')}:00:00+0000`;

/**
 * The fixture's expired tokens expired one hour before T0 (they were issued two hours before it, for one hour): "Session
 * has expired on Monday, 02-Nov-26 09:00:00 UTC. The current time is Monday, 02-Nov-26 10:00:00 UTC."
 */
export const EXPIRED = expiredToken(new Date(T0 - 3_600_000), new Date(T0));

export function expectOk(reply: RestReply, body: unknown): void {
  expect(reply.status, reply.text).toBe(200);
  expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
  expect(reply.body).toEqual(body);
}

/** `path?params`, the parameters form-encoded (undefined values left out). */
export function withQuery(path: string, params: Record<string, string | undefined>): string {
  const defined = Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined);
  return defined.length === 0 ? path : `${path}?${new URLSearchParams(defined)}`;
}

export const cursor = expect.stringMatching(/^[A-Za-z0-9_-]+$/);

// ---------------------------------------------------------------------------------------------------------------------
// The file's world, built once: the shared fixture plus a few objects the rules need. Tests that change comments (hide,
// delete, reply) or fill a media with comments take their own (a thread of post[0]'s comments on a new post, a new post,
// a new live video), so that every test also sees the fixture's comments as the fixture describes them.

export interface Side {
  login: LoginType;
  rest: RestClient;
  /** A token with every permission acting for bluebottle (own: bluebottle itself; parent: ana, who also manages roaster). */
  token: string;
  permissions: readonly string[];
  /** A token with exactly these permissions for the same subject as `token`. */
  mint(permissions: readonly string[]): Promise<string>;
  /** Acts for roaster only: bluebottle's media and comments are someone else's. */
  roasterOnly: string;
  /** Acts for bluebottle only (not roaster), every permission (parent: bm, whose role came through the business manager). */
  bluebottleOnly: string;
  /** Acts for no account that owns the comments under test. */
  stranger: string;
  expired: string;
  revoked: string;
  /** A valid token of the other login type. */
  otherLogin: string;
}

export interface CommentsWorld {
  fixture: SocialFixture;
  own: Side;
  parent: Side;
  side(login: LoginType): Side;
  /** bluebottle's comment on roaster's post: bluebottle is its author, roaster the media owner. */
  blueOnRoaster: string;
  /** Writes objects straight into the store (media, mentions, page roles). */
  graph: SocialGraphBuilder;
  /** A new comment written straight into the store (21:00 on the fixture's day unless `timestamp`). */
  addComment(
    mediaId: string,
    authorId: string,
    text: string,
    options?: { parentId?: string; timestamp?: Date; hidden?: boolean },
  ): Promise<string>;
  /** post[0]'s comments again on a new post of bluebottle's: for tests that hide, delete or reply to them. */
  newCommentThread(): Promise<CommentThread>;
  /** A new post of bluebottle's, for a test that fills it with comments or closes it. */
  newPost(input?: MediaInput): Promise<string>;
  setMedia(mediaId: string, values: { live_ended_at?: Date | null; comment_enabled?: boolean }): Promise<void>;
}

export async function buildCommentsWorld(base: SocialTestWorld): Promise<CommentsWorld> {
  const { system, fixture, graph } = base;
  const tokens = createSocialTokens(system.database, clock);
  const past = createSocialTokens(system.database, () => new Date(clock().getTime() - 2 * 3_600_000));

  const rita = await graph.platformUser('Rita Roaster');
  await graph.pageRole(fixture.pages.roaster, rita);
  const issue = (loginType: LoginType, subjectId: string, permissions: readonly string[]) =>
    tokens.issue({ loginType, subjectId, permissions, expiresInSeconds: 3600 });
  const parentRevoked = await issue('parent', fixture.platformUsers.ana, PARENT_PERMISSIONS);
  await tokens.revoke(parentRevoked);

  const own: Side = {
    login: 'own',
    rest: base.ownHost,
    token: fixture.tokens.own,
    permissions: OWN_PERMISSIONS,
    mint: (permissions) => fixture.token('own', fixture.accounts.bluebottle, permissions),
    roasterOnly: fixture.tokens.roasterOwn,
    bluebottleOnly: fixture.tokens.own,
    stranger: fixture.tokens.roasterOwn,
    expired: fixture.tokens.expired,
    revoked: fixture.tokens.revoked,
    otherLogin: fixture.tokens.parent,
  };
  const parent: Side = {
    login: 'parent',
    rest: base.parentHost,
    token: fixture.tokens.parent,
    permissions: PARENT_PERMISSIONS,
    mint: (permissions) => fixture.token('parent', fixture.platformUsers.ana, permissions),
    roasterOnly: await issue('parent', rita, PARENT_PERMISSIONS),
    bluebottleOnly: await issue('parent', fixture.platformUsers.bm, PARENT_PERMISSIONS),
    stranger: fixture.tokens.stranger,
    expired: await past.issue({
      loginType: 'parent',
      subjectId: fixture.platformUsers.ana,
      permissions: PARENT_PERMISSIONS,
      expiresInSeconds: 3600,
    }),
    revoked: parentRevoked,
    otherLogin: fixture.tokens.own,
  };
  const blueOnRoaster = await graph.comment(fixture.media.roasterPost, fixture.accounts.bluebottle, {
    text: 'Great beans',
    timestamp: new Date('2026-11-01T20:00:00Z'),
  });
  return {
    fixture,
    own,
    parent,
    side: (login) => (login === 'own' ? own : parent),
    blueOnRoaster,
    graph,
    addComment: (mediaId, authorId, text, options = {}) =>
      graph.comment(mediaId, authorId, {
        text,
        parentId: options.parentId ?? null,
        hidden: options.hidden ?? false,
        timestamp: options.timestamp ?? new Date('2026-11-01T21:00:00Z'),
      }),
    newCommentThread: () => fixture.newCommentThread(),
    newPost: (input) => base.newPost(input),
    setMedia: (mediaId, values) => base.setMedia(mediaId, values),
  };
}

/** GET with the token in the access_token query parameter (null: no token at all). */
export function get(side: Side, path: string, token: string | null = side.token, params: Record<string, string | undefined> = {}) {
  return side.rest.request('GET', withQuery(path, { ...params, access_token: token ?? undefined }));
}

export function post(side: Side, path: string, token: string | null = side.token, params: Record<string, string | undefined> = {}) {
  return side.rest.request('POST', withQuery(path, { ...params, access_token: token ?? undefined }));
}

export function del(side: Side, path: string, token: string | null = side.token) {
  return side.rest.request('DELETE', withQuery(path, { access_token: token ?? undefined }));
}

/** Creates a comment through the API and returns its id. */
export async function created(reply: Promise<RestReply>): Promise<string> {
  const answer = await reply;
  expect(answer.status, answer.text).toBe(200);
  expect(answer.body).toEqual({ id: expect.stringMatching(DIGITS) });
  return answer.body.id as string;
}

export const HOSTS = [
  { host: 'own-login host', login: 'own' as const },
  { host: 'parent-platform host', login: 'parent' as const },
];

/**
 * Registers the file's world (the shared social world on the test clock, plus the objects above) and hands back a
 * reader of it for tests and hooks. A test that moves the clock and fails half-way must not move it for the next one.
 */
export function useCommentsWorld(): () => CommentsWorld {
  afterEach(() => {
    current = T0;
  });
  const socialWorld = useSocialWorld({ now: clock });
  let world: CommentsWorld | undefined;
  beforeAll(async () => {
    world = await buildCommentsWorld(socialWorld());
  });
  return () => {
    if (world === undefined) throw new Error('the comments world is read before its beforeAll ran');
    return world;
  };
}
