import { SOCIAL_OPERATIONS, type SocialOperation } from '../../contracts/social-graph.ts';

/** The pieces every Graph path document is built from: schema helpers, common parameters and the operation shapes. */

export type Schema = Record<string, unknown>;
export type Operation = Record<string, unknown>;

/** The social graph's two hosts (README "Two hosts"). */
export type GraphHost = 'own' | 'parent';
/** What the first path segment after the version names. */
export type GraphNodeKind = 'comment' | 'media' | 'account' | 'container' | 'app' | 'page' | 'me';

export interface GraphOperationDoc {
  method: 'get' | 'post' | 'delete';
  /** Unique within the area; the document adds `_versionless` / `me_` forms. */
  operationId: string;
  summary: string;
  description?: string;
  tag: 'comments' | 'accounts';
  /** The service operation whose permissions apply (the matrix of subgraphs/shared/social-graph/social-access.ts). */
  permissions?: SocialOperation;
  /** `app`: the operation takes the app access token (`<app-id>|<app-secret>`, §6.1) instead of a user token. */
  token?: 'app';
  /** Query parameters of a read. */
  query?: readonly Schema[];
  /** Parameters of a write: in the query string, a form-urlencoded body or a JSON body. */
  form?: { properties: Record<string, Schema>; required?: readonly string[] };
  /** The 200 reply. */
  reply: Schema;
  /** Hosts where the operation is available; absent: both. */
  hosts?: readonly GraphHost[];
  /** The node kinds the operation takes, when fewer than its path's (only comments are hidden or deleted). */
  nodeKinds?: readonly GraphNodeKind[];
}

export interface GraphPathDoc {
  /** The node segment: a path parameter and the node kinds it takes, or the literal `me`. */
  node: { parameter: string; description: string; kinds: readonly Exclude<GraphNodeKind, 'me'>[] } | 'me';
  edge?: string;
  operations: readonly GraphOperationDoc[];
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
export const text = (description: string, extra: Schema = {}): Schema => ({ type: 'string', description, ...extra });
export const query = (name: string, schema: Schema, description: string, required = false): Schema => ({
  name,
  in: 'query',
  required,
  description,
  schema,
});

export const FIELDS = query(
  'fields',
  { type: 'string' },
  'Comma-separated fields and edges, with field expansion (`id,text,replies.limit(2){text}`; modifiers `.limit() .after() ' +
    '.before() .since() .until() .as()`, nesting to 16 levels). Absent: the default fields.',
);
export const PAGING = [
  query('limit', { type: 'integer', minimum: 1 }, 'Items per page (default 25).'),
  query('after', { type: 'string' }, 'Cursor: the page after this one (`paging.cursors.after`).'),
  query('before', { type: 'string' }, 'Cursor: the page before this one (`paging.cursors.before`).'),
];
export const TIME_WINDOW = [
  query('since', { type: 'string' }, 'Only items from this time on (unix seconds or a date).'),
  query('until', { type: 'string' }, 'Only items up to this time (unix seconds or a date).'),
];

export const SUCCESS: Schema = ref('GraphSuccess');
export const ID: Schema = ref('GraphId');

/** "Permissions: …" from the matrix, per host. */
export function permissionsNote(operation: SocialOperation): string {
  const rule = SOCIAL_OPERATIONS[operation];
  const list = (groups: readonly (readonly string[])[] | null) =>
    groups === null ? 'not available' : groups.map((group) => group.join(' or ')).join(', ');
  const tasks: readonly string[] | undefined = 'tasks' in rule ? rule.tasks : undefined;
  const role = tasks ? `, with a page role holding ${tasks.join(' or ')}` : '';
  return `Permissions — own-login host: ${list(rule.own)}; parent-platform host: ${list(rule.parent)}${role}.`;
}

export const PARENT_ONLY: readonly GraphHost[] = ['parent'];
export const OWN_ONLY: readonly GraphHost[] = ['own'];
