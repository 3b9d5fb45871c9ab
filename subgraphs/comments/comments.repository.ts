import { sql, type SqlBool } from 'kysely';
import pg from 'pg';
import type { CursorValue } from '../../lib/social-graph/cursor.ts';
import type { PageRequest } from '../shared/social-graph/social-paging.ts';
import type { Transaction } from 'kysely';
import type { MediaProductType, SocialDb, SocialTables } from '../shared/social-graph/social-tables.ts';
import type { CommentEventFacts } from '../shared/event-log/social-events.ts';
import { anyBigint } from '../../lib/database/any-bigint.ts';

/** Every line of SQL of the comments subgraph. */

export interface CommentRecord {
  id: string;
  mediaId: string;
  authorId: string;
  authorUsername: string;
  parentId: string | null;
  text: string;
  hidden: boolean;
  likeCount: number;
  timestamp: Date;
  legacySocialCommentId: string | null;
  media: CommentMediaFacts;
}

/** What the comment rules need to know of the media a comment is on, read in the same query. */
export interface CommentMediaFacts {
  id: string;
  ownerId: string;
  productType: MediaProductType;
  isLive: boolean;
  liveEnded: boolean;
  commentEnabled: boolean;
  ownerAgeGated: boolean;
}

/** A comment's own columns and its author's name: what every comment read selects. */
const COMMENT_COLUMNS = [
  'c.id',
  'c.media_id',
  'c.author_id',
  'a.username as author_username',
  'c.parent_id',
  'c.text',
  'c.hidden',
  'c.like_count',
  // As text, parsed only when read (StoredComment): timestamptz's text is what the database sends either way.
  sql<string>`c.timestamp::text`.as('timestamp_text'),
  'c.legacy_social_comment_id',
] as const;

/** COMMENT_COLUMNS as the windowed list's subquery `t` names them. */
const WINDOWED_COMMENT_COLUMNS = [
  't.id',
  't.media_id',
  't.author_id',
  't.author_username',
  't.parent_id',
  't.text',
  't.hidden',
  't.like_count',
  't.timestamp_text',
  't.legacy_social_comment_id',
] as const;

/** Live (not deleted) comments with their authors, before any column is chosen. */
function liveCommentsWithAuthors(db: SocialDb) {
  return db.selectFrom('social.comment as c').innerJoin('social.account as a', 'a.id', 'c.author_id').where('c.deleted_at', 'is', null);
}

/** Comments with the facts of their media read in the same statement (single reads, where no parent brings them). */
function commentQuery(db: SocialDb) {
  return liveCommentsWithAuthors(db)
    .innerJoin('social.media as m', 'm.id', 'c.media_id')
    .innerJoin('social.account as o', 'o.id', 'm.owner_id')
    .select(COMMENT_COLUMNS)
    .select(['m.owner_id', 'm.media_product_type', 'm.is_live', 'm.live_ended_at', 'm.comment_enabled', 'o.age_gated as owner_age_gated'])
    .where('m.deleted_at', 'is', null);
}

type CommentRow = Awaited<ReturnType<ReturnType<typeof commentQuery>['executeTakeFirstOrThrow']>>;
type CommentColumns = Pick<
  CommentRow,
  | 'id'
  | 'media_id'
  | 'author_id'
  | 'author_username'
  | 'parent_id'
  | 'text'
  | 'hidden'
  | 'like_count'
  | 'timestamp_text'
  | 'legacy_social_comment_id'
>;

/** node-postgres's own parser of timestamptz text (the Date a timestamptz column would have been read as). */
const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, 'text') as (text: string) => Date;

/**
 * A comment as read from the database, its timestamp parsed when first read: a deep read lists ~1,900 comments and
 * asks the time of none of them through GraphQL, and of each page's first and last (their cursors) through REST, while
 * parsing every one cost the read CPU for nothing (bench/README.md, "Issue 13's targets before coalescing"). The other
 * fields are plain; the class only holds the getter.
 */
class StoredComment implements CommentRecord {
  readonly id: string;
  readonly mediaId: string;
  readonly authorId: string;
  readonly authorUsername: string;
  readonly parentId: string | null;
  readonly text: string;
  readonly hidden: boolean;
  readonly likeCount: number;
  readonly legacySocialCommentId: string | null;
  readonly media: CommentMediaFacts;
  #timestampText: string;
  #timestamp: Date | undefined;

  constructor(row: CommentColumns, media: CommentMediaFacts) {
    this.id = String(row.id);
    this.mediaId = String(row.media_id);
    this.authorId = String(row.author_id);
    this.authorUsername = row.author_username;
    this.parentId = row.parent_id === null ? null : String(row.parent_id);
    this.text = row.text;
    this.hidden = row.hidden;
    this.likeCount = row.like_count;
    this.legacySocialCommentId = row.legacy_social_comment_id;
    this.media = media;
    this.#timestampText = row.timestamp_text;
  }

  get timestamp(): Date {
    return (this.#timestamp ??= parseTimestamptz(this.#timestampText));
  }
}

function toCommentRecord(row: CommentColumns, media: CommentMediaFacts): CommentRecord {
  return new StoredComment(row, media);
}

function toComment(row: CommentRow): CommentRecord {
  return toCommentRecord(row, {
    id: String(row.media_id),
    ownerId: String(row.owner_id),
    productType: row.media_product_type,
    isLive: row.is_live,
    liveEnded: row.live_ended_at !== null,
    commentEnabled: row.comment_enabled,
    ownerAgeGated: row.owner_age_gated,
  });
}

export async function findCommentsByIds(db: SocialDb, ids: readonly string[]): Promise<CommentRecord[]> {
  if (ids.length === 0) return [];
  const rows = await commentQuery(db).where('c.id', '=', anyBigint(ids)).execute();
  return rows.map(toComment);
}

/** Which comments a batched list reads: the top-level comments of media (newest first), or replies (oldest first). */
export type CommentListKind = 'media' | 'replies';

/** A parent whose comments a batched list reads, with the facts of the media those comments are on. */
export interface CommentListParent {
  id: string;
  media: CommentMediaFacts;
}

/**
 * One page of comments for each of several parents (media or comments) in a single statement: a window function numbers
 * each parent's comments in list order, and `take` are kept per parent. Rows come back grouped by parent, in reading
 * order (see social-paging.ts).
 *
 * The media facts come with the parents (the caller has them already: the media were checked before their comments are
 * listed, and replies are on their parent's media), so the statement reads comments and their authors only — no join
 * to the media and its owner per row, and each comment shares its media's facts object.
 */
export async function listCommentsBatch(
  db: SocialDb,
  kind: CommentListKind,
  parents: readonly CommentListParent[],
  page: PageRequest,
): Promise<Map<string, CommentRecord[]>> {
  const byParent = new Map<string, CommentRecord[]>(parents.map((parent) => [parent.id, []]));
  if (parents.length === 0) return byParent;
  const mediaOf = new Map(parents.map((parent) => [parent.id, parent.media]));
  // Media comments are newest first, replies oldest first; reading backward flips the order.
  const newestFirst = (kind === 'media') === (page.direction === 'forward');
  const order = newestFirst ? sql.raw('desc') : sql.raw('asc');
  const parentColumn = kind === 'media' ? sql.ref('c.media_id') : sql.ref('c.parent_id');
  let inner = liveCommentsWithAuthors(db)
    .select(COMMENT_COLUMNS)
    // The timestamp itself orders the outer query (the text would not sort as time); it is not sent.
    .select('c.timestamp')
    .select(sql<number>`row_number() over (partition by ${parentColumn} order by c.timestamp ${order}, c.id ${order})`.as('rn'))
    .where(parentColumn, '=', anyBigint([...mediaOf.keys()]));
  inner = kind === 'media' ? inner.where('c.parent_id', 'is', null) : inner;
  if (page.position) {
    const [seconds, id] = page.position as [CursorValue, CursorValue];
    const beyond = newestFirst
      ? sql<SqlBool>`(c.timestamp, c.id) < (to_timestamp(${seconds}), ${id}::bigint)`
      : sql<SqlBool>`(c.timestamp, c.id) > (to_timestamp(${seconds}), ${id}::bigint)`;
    inner = inner.where(beyond);
  }
  // The window's row number cuts the rows but is not read back: one bigint column fewer to parse per row. The rows come
  // out in the window's own order (parent, then reading order), which the database has already sorted for the window:
  // ordering by the row number instead sorted every row a second time
  // (bench/README.md, "Issue 13's targets before coalescing").
  const rows = await db
    .selectFrom(inner.as('t'))
    .select(WINDOWED_COMMENT_COLUMNS)
    .where('t.rn', '<=', page.take)
    .orderBy(kind === 'media' ? 't.media_id' : 't.parent_id')
    .orderBy('t.timestamp', newestFirst ? 'desc' : 'asc')
    .orderBy('t.id', newestFirst ? 'desc' : 'asc')
    .execute();
  for (const row of rows) {
    const parentId = String(kind === 'media' ? row.media_id : row.parent_id);
    const media = mediaOf.get(parentId);
    // A reply is on its parent's media; a row on another media (which no write makes) is not this list's.
    if (!media || media.id !== String(row.media_id)) continue;
    byParent.get(parentId)!.push(toCommentRecord(row, media));
  }
  return byParent;
}

/** Comments (replies included, deleted excluded) on each media object. */
export async function countCommentsByMedia(db: SocialDb, mediaIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>(mediaIds.map((id) => [id, 0]));
  if (mediaIds.length === 0) return counts;
  const rows = await db
    .selectFrom('social.comment')
    .select(['media_id', sql<number>`count(*)::int`.as('n')])
    .where('media_id', '=', anyBigint(mediaIds))
    .where('deleted_at', 'is', null)
    .groupBy('media_id')
    .execute();
  for (const row of rows) counts.set(String(row.media_id), row.n);
  return counts;
}

export async function findMediaFacts(db: SocialDb, ids: readonly string[]): Promise<CommentMediaFacts[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('social.media as m')
    .innerJoin('social.account as o', 'o.id', 'm.owner_id')
    .select(['m.id', 'm.owner_id', 'm.media_product_type', 'm.is_live', 'm.live_ended_at', 'm.comment_enabled', 'o.age_gated'])
    .where('m.id', '=', anyBigint(ids))
    .where('m.deleted_at', 'is', null)
    .execute();
  return rows.map((row) => ({
    id: String(row.id),
    ownerId: String(row.owner_id),
    productType: row.media_product_type,
    isLive: row.is_live,
    liveEnded: row.live_ended_at !== null,
    commentEnabled: row.comment_enabled,
    ownerAgeGated: row.age_gated,
  }));
}

/** The facts of these comments (with their media and author) an event of them is made of, in id order. */
export async function findCommentEventFacts(db: SocialDb, ids: readonly string[]): Promise<CommentEventFacts[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('social.comment as c')
    .innerJoin('social.media as m', 'm.id', 'c.media_id')
    .innerJoin('social.account as a', 'a.id', 'c.author_id')
    .select([
      'c.id',
      'c.text',
      'c.parent_id',
      'c.author_id',
      'a.username',
      'c.media_id',
      'm.owner_id',
      'm.media_product_type',
      'm.is_live',
      'm.live_ended_at',
    ])
    .where('c.id', 'in', [...ids])
    .orderBy('c.id')
    .execute();
  return rows.map((row) => ({
    id: String(row.id),
    text: row.text,
    parentId: row.parent_id === null ? null : String(row.parent_id),
    authorId: String(row.author_id),
    authorUsername: row.username,
    mediaId: String(row.media_id),
    mediaOwnerId: String(row.owner_id),
    mediaProductType: row.media_product_type,
    live: row.is_live && row.live_ended_at === null,
  }));
}

/** Hides or shows a comment (one not already so): whether it changed. */
export async function setCommentHidden(trx: Transaction<SocialTables>, id: string, hidden: boolean): Promise<boolean> {
  const changed = await trx
    .updateTable('social.comment')
    .set({ hidden })
    .where('id', '=', id)
    .where('hidden', '=', !hidden)
    .returning('id')
    .execute();
  return changed.length > 0;
}

/** Deletes a comment and its replies (soft: rows stay for audit, reads skip them): the ids deleted. */
export async function deleteCommentThread(trx: Transaction<SocialTables>, id: string, at: Date): Promise<string[]> {
  const deleted = await trx
    .updateTable('social.comment')
    .set({ deleted_at: at })
    .where((eb) => eb.or([eb('id', '=', id), eb('parent_id', '=', id)]))
    .where('deleted_at', 'is', null)
    .returning('id')
    .execute();
  return deleted.map((row) => String(row.id));
}

/**
 * Inserts a comment and records the accounts its text @mentions (those that exist): its id, and the ids of the
 * accounts mentioned (in id order).
 */
export async function insertComment(
  trx: Transaction<SocialTables>,
  comment: { mediaId: string; authorId: string; parentId: string | null; text: string; timestamp: Date },
  mentionedUsernames: readonly string[],
): Promise<{ id: string; mentioned: string[] }> {
  const inserted = await trx
    .insertInto('social.comment')
    .values({
      media_id: comment.mediaId,
      author_id: comment.authorId,
      parent_id: comment.parentId,
      text: comment.text,
      timestamp: comment.timestamp,
      legacy_social_comment_id: null,
      deleted_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const id = String(inserted.id);
  // The legacy interface's id of a comment is the new id itself: clients of the older interface look it up by that.
  await trx.updateTable('social.comment').set({ legacy_social_comment_id: id }).where('id', '=', id).execute();
  const mentioned: string[] = [];
  if (mentionedUsernames.length > 0) {
    const accounts = await trx
      .selectFrom('social.account')
      .select('id')
      .where('username', 'in', [...mentionedUsernames])
      .execute();
    mentioned.push(...accounts.map((account) => String(account.id)).sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1)));
    if (accounts.length > 0) {
      await trx
        .insertInto('social.mention')
        .values(mentioned.map((accountId) => ({ account_id: accountId, media_id: comment.mediaId, comment_id: id })))
        .execute();
    }
  }
  return { id, mentioned };
}

/** Whether the account was @mentioned in the comment (comment_id given) or in the media's caption (comment_id null). */
export async function findMention(
  db: SocialDb,
  accountId: string,
  mediaId: string | undefined,
  commentId: string | null,
): Promise<{ mediaId: string } | undefined> {
  let query = db.selectFrom('social.mention').select('media_id').where('account_id', '=', accountId);
  if (mediaId !== undefined) query = query.where('media_id', '=', mediaId);
  query = commentId === null ? query.where('comment_id', 'is', null) : query.where('comment_id', '=', commentId);
  const row = await query.executeTakeFirst();
  return row ? { mediaId: String(row.media_id) } : undefined;
}
