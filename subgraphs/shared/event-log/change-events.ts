/**
 * The change log's vocabulary beyond the social graph's events (issue 39): every area's writes are logged, each with the
 * entities it touched, so that a consumer (the gateway's cache) can tell exactly what changed. An entity is named as the
 * supergraph's entity keys name it, `<GraphQL type>:<id>` with the id in decimal — `UserExample:42`, `Comment:17841…`.
 *
 * A change that is no Graph API event — outside the social graph, or a write of it no webhook reports — has no webhook
 * field and no webhook account (both null in the row): webhook delivery and GraphQL subscriptions never read it.
 */

/** The key of an entity in the change log: its GraphQL type and its id. */
export function entityKey(type: string, id: string): string {
  return `${type}:${id}`;
}

/** Area A's changes: a user record created, updated (any field, the password included) or soft-deleted. */
export type UserExampleChangeKind = 'user_example_created' | 'user_example_updated' | 'user_example_deleted';

/**
 * Area D's changes of an upload (its media id): uploaded whole (`media_uploaded`), a chunked upload begun, a segment
 * appended, finalized, its processing begun or advanced (`media_processing`) and ended (`media_processed`), its
 * metadata (alt text) set, claimed by a post (`media_retained`: no longer swept), and its bytes swept at expiry or its
 * unfinished session dropped (`media_expired`).
 */
export type MediaChangeKind =
  | 'media_uploaded'
  | 'media_upload_started'
  | 'media_segment_appended'
  | 'media_upload_finalized'
  | 'media_processing'
  | 'media_processed'
  | 'media_metadata_set'
  | 'media_retained'
  | 'media_expired';

/**
 * The social graph's writes that no webhook reports (so no field), each a change of the professional account's edges:
 * a publishing container made, a media object published (with its carousel children), a hashtag searched (the
 * recently searched edge), an upcoming event created, an ad account authorized.
 */
export type AccountChangeKind =
  'media_container_created' | 'media_published' | 'hashtag_searched' | 'upcoming_event_created' | 'ad_account_authorized';

export type RecordChangeKind = UserExampleChangeKind | MediaChangeKind | AccountChangeKind;

/** A change the log records that no webhook or subscription reports. */
export interface RecordChange {
  accountId: null;
  field: null;
  kind: RecordChangeKind;
  /** What a reader needs beyond the keys (ids only: the log is no copy of the data, and keeps no personal data). */
  value: Record<string, unknown>;
  keys: readonly string[];
}

/** A user record's change: its key is `UserExample:<id>`. */
export function userExampleChange(kind: 'created' | 'updated' | 'deleted', id: string): RecordChange {
  return { accountId: null, field: null, kind: `user_example_${kind}`, value: { id }, keys: [entityKey('UserExample', id)] };
}

/**
 * An upload's change: its key is `MediaUploadSession:<media id>`, the type its reads return (STATUS,
 * `mediaUploadStatus`), whichever of Area D's types the write itself answered with.
 */
export function mediaChange(kind: MediaChangeKind, mediaId: string): RecordChange {
  return { accountId: null, field: null, kind, value: { media_id: mediaId }, keys: [entityKey('MediaUploadSession', mediaId)] };
}

/** A change of a professional account's edges: `Account:<id>` and the other entities it made or touched. */
export function accountChange(kind: AccountChangeKind, accountId: string, keys: readonly string[] = []): RecordChange {
  return { accountId: null, field: null, kind, value: { account_id: accountId }, keys: [entityKey('Account', accountId), ...keys] };
}
