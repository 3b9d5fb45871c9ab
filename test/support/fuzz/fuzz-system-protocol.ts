/**
 * What the fuzz harness (fuzz-system.ts, in the test runner) and the system it fuzzes (fuzz-system-host.ts, a child
 * process) tell each other over IPC, and what the system's seed data is.
 */

export type Topology = 'embedded' | 'distributed';

export interface SystemInfo {
  topology: Topology;
  database: 'pglite' | 'postgres';
  pid: number;
  gatewayUrl: string;
  /** Area A, the upload and the social graph's own-login host. */
  restUrl: string;
  /** The social graph's parent-platform host. */
  socialParentUrl: string;
  grpcAddress: string;
  /** The throwaway PostgreSQL database (dropped by the harness when the process dies before dropping it itself). */
  databaseUrl: string | undefined;
  areaA: {
    adminToken: string;
    /** Seeded records (ids as decimal strings). */
    userIds: string[];
    /** A token per seeded record (sub = its id). */
    userTokens: Record<string, string>;
    expiredToken: string;
  };
  social: {
    accounts: { bluebottle: string; roaster: string; shady: string; fanOne: string; fanTwo: string };
    platformUsers: { ana: string; bm: string; stranger: string };
    posts: string[];
    media: Record<string, string>;
    comments: Record<string, string>;
    containers: string[];
    tokens: {
      /** bluebottle, own-login host, every permission. */
      own: string;
      roasterOwn: string;
      /** ana, parent-platform host, every permission. */
      parent: string;
      stranger: string;
      bmWithoutAds: string;
      expired: string;
      revoked: string;
    };
  };
  /**
   * Area D: an OAuth 1.0a app with an access token for bluebottle, an app-only bearer token (refused with 220), and two
   * media ids of bluebottle's that expired before the run (the system's clock is the real one, so a fuzz case cannot wait
   * for an id to expire): a chunked session never finalized, and a finished chunked upload.
   */
  media: {
    consumerKey: string;
    consumerSecret: string;
    token: string;
    tokenSecret: string;
    appBearer: string;
    expiredSessionId: string;
    expiredUploadId: string;
  };
  /**
   * Webhook subscriptions (the webhooks door): three apps with their app access tokens (`<app id>|<app secret>`) — the
   * handshake's own, which no other property touches, the endpoints' app, and another app whose token is wrong for the
   * first two — the fixture's pages, and tokens issued to the endpoints' app (own-login bluebottle, parent-platform ana
   * and stranger, every permission), which `…/subscribed_apps` subscribes accounts to.
   */
  webhooks: {
    apps: Record<'handshake' | 'main' | 'other', { id: string; token: string }>;
    pages: { bluebottle: string; roaster: string };
    tokens: { ownWithApp: string; parentWithApp: string; strangerWithApp: string };
  };
}

export type HostRequest =
  /** Starts a system (one at a time), with test-system.ts's configuration and these overrides. */
  | { type: 'start'; id: number; topology: Topology; env: Record<string, string> }
  | { type: 'digest'; id: number }
  /** The rows of `table` (schema.table) whose `column`, as text, is `value`: what a door reads back of what it stored. */
  | { type: 'rows'; id: number; table: string; column: string; value: string }
  /** Closes the system (its throwaway database dropped, its blob directory removed); the process waits for the next start. */
  | { type: 'stop'; id: number }
  | { type: 'close'; id: number };

export type HostReply =
  /** The process has loaded its modules and takes requests. */
  | { type: 'loaded' }
  | { type: 'started'; id: number; info: SystemInfo }
  | { type: 'digest'; id: number; tables: Record<string, string> }
  | { type: 'rows'; id: number; rows: Record<string, unknown>[] }
  | { type: 'failed'; id: number; message: string }
  | { type: 'stopped'; id: number }
  | { type: 'closed'; id: number };
