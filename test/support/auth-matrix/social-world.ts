import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { appAccessToken } from '../../../lib/auth/social-auth/social-token.service.ts';
import { createCursorCodec } from '../../../lib/social-graph/cursor.ts';
import { createAccountEdgesService } from '../../../subgraphs/accounts/account-edges.service.ts';
import { saveAppSubscription, saveSubscribedApp } from '../../../subgraphs/shared/webhooks/webhook-subscriptions.repository.ts';
import { createSocialTokens } from '../../../subgraphs/index.ts';
import { createSocialFixture, OWN_PERMISSIONS, PARENT_PERMISSIONS, socialWorldParts, type SocialFixture } from '../social-fixture.ts';
import type { TestSystem } from '../test-system.ts';
import { MATRIX_NOW } from './matrix.ts';
import type { ExpiryDates } from './social-errors.ts';

/**
 * The social graph the matrix runs against: the shared fixture (bluebottle, roaster, ana, bm, stranger…) plus the few
 * objects the matrix needs of its own — comments with distinctive texts for the leak checks, a user whose only page role
 * is on roaster's page (rita), a page role without publishing tasks (andy), a container, an ad account of ana's business,
 * apps for the webhook subscriptions (the matrix app, subscribed to comments and mentions with a callback that a real
 * receiver on 127.0.0.1 serves; another app; and an app bluebottle's account is subscribed to, which no cell's token is
 * issued to) — and the credentials of each cell, minted on first use. Every user token is issued to the matrix app, so
 * that `subscribed_apps` has an app to subscribe the account to; `close()` stops the receiver.
 *
 * The door's actor is bluebottle on the own-login host and ana (a direct page role on bluebottle's page, every task) on
 * the parent-platform host; both act for bluebottle's objects.
 */

export type Host = 'own' | 'parent';
export type OwnSubject = 'bluebottle' | 'roaster';
export type ParentSubject = 'ana' | 'bm' | 'stranger' | 'rita' | 'andy';

/** The credential of a cell, described so that the table stays static; the world turns it into a request header. */
export type TokenSpec =
  | { kind: 'none' }
  /** A whole Authorization header that carries no token at all (`Basic …`). */
  | { kind: 'header'; value: string }
  /** A string sent as the token. */
  | { kind: 'literal'; value: string }
  /** A token the server issued, with its last character changed: the "signature" of an opaque token is its whole value. */
  | { kind: 'tampered'; login: Host }
  | { kind: 'expired'; login: Host }
  | { kind: 'revoked'; login: Host }
  | { kind: 'grant'; login: 'own'; subject: OwnSubject; permissions: readonly string[] }
  | { kind: 'grant'; login: 'parent'; subject: ParentSubject; permissions: readonly string[] }
  /** An app access token (`<app-id>|<secret>`): the matrix app's, another app's, or the matrix app's id with a wrong secret. */
  | { kind: 'app'; app: 'matrix' | 'other' | 'wrong-secret' };

/** How a credential travels: as a token (access_token, or Authorization: Bearer), or as a raw Authorization header. */
export interface Credential {
  token?: string;
  authorization?: string;
}

export const ALL_OWN: readonly string[] = OWN_PERMISSIONS;
export const ALL_PARENT: readonly string[] = PARENT_PERMISSIONS;

/** The door's own actor with every permission of its login type. */
export const actorToken = (host: Host): TokenSpec =>
  host === 'own'
    ? { kind: 'grant', login: 'own', subject: 'bluebottle', permissions: ALL_OWN }
    : { kind: 'grant', login: 'parent', subject: 'ana', permissions: ALL_PARENT };

export interface WorldIds {
  bluebottle: string;
  roaster: string;
  /** bluebottle's post the matrix's read cells read comments of (the fixture's post[1]); nothing else is added to it. */
  post: string;
  /** bluebottle's post that fresh comments and allowed comment creations go to (post[2]), so that `post` stays as it is. */
  busyPost: string;
  /** bluebottle's newest post (caption `Post 0 #coffee`). */
  post0: string;
  /** A fan's comment on `post` with a reply: what the read cells read. */
  readComment: string;
  readReply: string;
  /** bluebottle's own comment on roaster's post: visible to bluebottle, whose media it is not. */
  blueOnRoaster: string;
  /** roaster's comment on bluebottle's post: visible to rita (she acts for roaster), whose media it is not. */
  roasterOnBlue: string;
  roasterPost: string;
  /** fan_one's comment on roaster's post that mentions @bluebottle. */
  roasterComment: string;
  /** A publishing container of bluebottle. */
  container: string;
  acme: string;
  /** An ad account of Acme Holdings (ana administers Acme; bm does not). */
  acmeAdAccount: string;
  ana: string;
  bm: string;
  stranger: string;
  rita: string;
  andy: string;
  /** bluebottle's page (ana's direct role, every task; bm's through a business manager; andy's ANALYZE only). */
  bluebottlePage: string;
  /** The matrix app, whose subscription to the social object's comments and mentions calls back to `callbackUrl`. */
  app: string;
  callbackUrl: string;
}

/** The verify token the matrix's receiver answers the verification request for. */
export const MATRIX_VERIFY_TOKEN = 'AM verify token';

export interface SocialWorld {
  system: TestSystem;
  fixture: SocialFixture;
  dates: ExpiryDates;
  ids: WorldIds;
  credential(spec: TokenSpec): Promise<Credential>;
  /** A new comment, for cells that change or remove one (so a wrongly allowed write cannot disturb other cells). */
  freshComment(on: 'busyPost' | 'roasterPost', author: 'fanTwo' | 'roaster' | 'bluebottle'): Promise<string>;
  /** A new container of bluebottle, ready to publish. */
  freshContainer(): Promise<string>;
  /** hidden, and whether it still exists (not deleted). */
  commentState(id: string): Promise<{ hidden: boolean; exists: boolean }>;
  /** Stops the webhook receiver. */
  close(): Promise<void>;
}

/** Texts and names only the matrix's objects carry, for the leak checks. */
export const WORLD_TEXTS = {
  readComment: 'AM read-me comment 41c7',
  readReply: 'AM read-me reply 9d02',
  blueOnRoaster: 'AM bluebottle on roaster 5e11',
  roasterOnBlue: 'AM roaster on bluebottle 77aa',
  fresh: 'AM fresh comment',
  containerCaption: 'AM container caption 0b3f',
  acmeAdAccountName: 'Acme Holdings — AM in-house',
  /** The app bluebottle's account is subscribed to: what a read of `subscribed_apps` shows. */
  subscribedAppName: 'AM subscribed app 3c1f',
  /** The path of the matrix app's callback: what a read of its subscriptions shows. */
  callbackPath: '/am-callback-7e2a',
} as const;

export async function createSocialWorld(system: TestSystem): Promise<SocialWorld> {
  const now = () => MATRIX_NOW;
  const fixture = await createSocialFixture(system.database, { now });
  const { graph, tables: db, commentState } = socialWorldParts(system.database, fixture);
  const at = new Date(MATRIX_NOW.getTime() - 30 * 60_000);

  const rita = await graph.platformUser('Rita Roaster');
  await graph.pageRole(fixture.pages.roaster, rita);
  const andy = await graph.platformUser('Andy Analyst');
  await graph.pageRole(fixture.pages.bluebottle, andy, { tasks: ['ANALYZE'] });

  const post = fixture.posts[1]!;
  const readComment = await graph.comment(post, fixture.accounts.fanOne, { text: WORLD_TEXTS.readComment, timestamp: at });
  const readReply = await graph.comment(post, fixture.accounts.fanTwo, {
    text: WORLD_TEXTS.readReply,
    parentId: readComment,
    timestamp: at,
  });
  const blueOnRoaster = await graph.comment(fixture.media.roasterPost, fixture.accounts.bluebottle, {
    text: WORLD_TEXTS.blueOnRoaster,
    timestamp: at,
  });
  const roasterOnBlue = await graph.comment(post, fixture.accounts.roaster, { text: WORLD_TEXTS.roasterOnBlue, timestamp: at });

  const edges = createAccountEdgesService({ db, codec: createCursorCodec('auth-matrix-cursor-secret-not-used-for-reading'), now });
  const freshContainer = async () =>
    (
      await edges.createContainer(fixture.accounts.bluebottle, {
        imageUrl: 'https://cdn.example.com/auth-matrix.jpg',
        caption: WORLD_TEXTS.containerCaption,
      })
    ).id;
  const container = await freshContainer();
  const adAccount = await db
    .insertInto('social.ad_account')
    .values({ business_id: fixture.businessId, name: WORLD_TEXTS.acmeAdAccountName })
    .returning('id')
    .executeTakeFirstOrThrow();

  // The webhook receiver: the challenge for the matrix's verify token, 403 otherwise; deliveries acknowledged.
  const receiver = createServer((req, res) => {
    const query = new URL(req.url ?? '/', 'http://receiver').searchParams;
    if (req.method !== 'GET') res.writeHead(200).end();
    else if (query.get('hub.verify_token') === MATRIX_VERIFY_TOKEN)
      res.writeHead(200, { 'content-type': 'text/plain' }).end(query.get('hub.challenge'));
    else res.writeHead(403).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}${WORLD_TEXTS.callbackPath}`;
  const appTokens = createSocialTokens(system.database, now);
  const [matrixApp, otherApp, subscribedApp] = [
    await appTokens.createApp('AM matrix app'),
    await appTokens.createApp('AM other app'),
    await appTokens.createApp(WORLD_TEXTS.subscribedAppName),
  ];
  const webhookFields = ['comments', 'mentions'];
  await saveAppSubscription(
    db,
    { appId: matrixApp.id, object: 'social', callbackUrl, verifyToken: MATRIX_VERIFY_TOKEN, includeValues: false, fields: webhookFields },
    MATRIX_NOW,
  );
  await saveSubscribedApp(db, fixture.accounts.bluebottle, subscribedApp.id, ['comments']);

  const ids: WorldIds = {
    bluebottle: fixture.accounts.bluebottle,
    roaster: fixture.accounts.roaster,
    post,
    busyPost: fixture.posts[2]!,
    post0: fixture.posts[0]!,
    readComment,
    readReply,
    blueOnRoaster,
    roasterOnBlue,
    roasterPost: fixture.media.roasterPost,
    roasterComment: fixture.comments.roasterComment,
    container,
    acme: fixture.businessId,
    acmeAdAccount: `act_${adAccount.id}`,
    ana: fixture.platformUsers.ana,
    bm: fixture.platformUsers.bm,
    stranger: fixture.platformUsers.stranger,
    rita,
    andy,
    bluebottlePage: fixture.pages.bluebottle,
    app: matrixApp.id,
    callbackUrl,
  };
  const subjects: Record<OwnSubject | ParentSubject, string> = {
    bluebottle: ids.bluebottle,
    roaster: ids.roaster,
    ana: ids.ana,
    bm: ids.bm,
    stranger: ids.stranger,
    rita,
    andy,
  };

  // Issued two hours before the clock for one hour: expired an hour ago.
  const pastTokens = createSocialTokens(system.database, () => new Date(MATRIX_NOW.getTime() - 2 * 3_600_000));
  const tokens = createSocialTokens(system.database, now);
  const minted = new Map<string, Promise<string>>();
  const mint = (key: string, make: () => Promise<string>): Promise<string> => {
    let token = minted.get(key);
    if (!token) minted.set(key, (token = make()));
    return token;
  };
  const subjectOf = (host: Host) => (host === 'own' ? ids.bluebottle : ids.ana);
  const allOf = (host: Host) => (host === 'own' ? ALL_OWN : ALL_PARENT);

  async function credential(spec: TokenSpec): Promise<Credential> {
    switch (spec.kind) {
      case 'none':
        return {};
      case 'header':
        return { authorization: spec.value };
      case 'literal':
        return { token: spec.value };
      case 'tampered': {
        const issued = await mint(`tampered:${spec.login}`, () =>
          tokens.issue({ loginType: spec.login, subjectId: subjectOf(spec.login), permissions: allOf(spec.login), expiresInSeconds: 3600 }),
        );
        const last = issued.at(-1)!;
        return { token: `${issued.slice(0, -1)}${last === 'A' ? 'B' : 'A'}` };
      }
      case 'expired':
        return {
          token: await mint(`expired:${spec.login}`, () =>
            pastTokens.issue({
              loginType: spec.login,
              subjectId: subjectOf(spec.login),
              permissions: allOf(spec.login),
              expiresInSeconds: 3600,
            }),
          ),
        };
      case 'revoked':
        return {
          token: await mint(`revoked:${spec.login}`, async () => {
            const token = await tokens.issue({
              loginType: spec.login,
              subjectId: subjectOf(spec.login),
              permissions: allOf(spec.login),
              expiresInSeconds: 3600,
            });
            await tokens.revoke(token);
            return token;
          }),
        };
      case 'grant': {
        const permissions = [...spec.permissions].sort();
        return {
          token: await mint(`grant:${spec.login}:${spec.subject}:${permissions.join(',')}`, () =>
            tokens.issue({
              loginType: spec.login,
              subjectId: subjects[spec.subject],
              permissions,
              expiresInSeconds: 3600,
              appId: matrixApp.id,
            }),
          ),
        };
      }
      case 'app':
        switch (spec.app) {
          case 'matrix':
            return { token: appAccessToken(matrixApp) };
          case 'other':
            return { token: appAccessToken(otherApp) };
          case 'wrong-secret':
            return { token: appAccessToken({ id: matrixApp.id, secret: otherApp.secret }) };
        }
    }
  }

  return {
    system,
    fixture,
    dates: { expiredAt: new Date(MATRIX_NOW.getTime() - 3_600_000), now: MATRIX_NOW },
    ids,
    credential,
    freshComment: (on, author) =>
      graph.comment(
        on === 'busyPost' ? ids.busyPost : fixture.media.roasterPost,
        author === 'fanTwo' ? fixture.accounts.fanTwo : author === 'roaster' ? ids.roaster : ids.bluebottle,
        {
          text: WORLD_TEXTS.fresh,
          timestamp: at,
        },
      ),
    freshContainer,
    commentState,
    close: () => new Promise<void>((resolve) => receiver.close(() => resolve())),
  };
}
