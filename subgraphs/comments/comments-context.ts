import DataLoader from 'dataloader';
import type { Page } from '../shared/social-graph/social-paging.ts';
import type { SocialCallOf } from '../shared/social-graph/social-call.ts';
import type { ViewerOf } from '../shared/social-graph/social-request.ts';
import type { CommentListKind, CommentMediaFacts, CommentRecord } from './comments.repository.ts';
import type { CommentsService } from './comments.service.ts';
import type { SocialEventFeed } from '../shared/event-log/event-log-feed.ts';
import type { SocialEventRecord } from '../shared/event-log/social-events.ts';

/** A list wanted for one parent: which parent, and the page arguments (parents asking the same page batch together). */
interface ListKey {
  kind: CommentListKind;
  parentId: string;
  /** The media the listed comments are on: the parent itself, or the replied-to comment's. */
  mediaId: string;
  first?: number | null | undefined;
  after?: string | null | undefined;
  before?: string | null | undefined;
}

/** Per-request context of the comments subgraph: the lazily resolved viewer and the request's DataLoaders. */
export interface CommentsContext {
  viewer: ViewerOf;
  /** This request as a call the rate limits count (admitted by the first root field). */
  call: SocialCallOf;
  comments: CommentsService;
  /** The event log as streams, for the Subscription fields (one per process). */
  events: SocialEventFeed;
  commentLoader: DataLoader<string, CommentRecord | undefined>;
  mediaLoader: DataLoader<string, CommentMediaFacts | undefined>;
  commentsCountLoader: DataLoader<string, number>;
  /** One statement per distinct page request, whatever the number of parents (media or comments) asking for it. */
  listLoader: DataLoader<ListKey, Page<CommentRecord>, string>;
}

/** Where a context's comment and media loaders read from: the service (a statement per batch), or loaders shared wider. */
export interface CommentReads {
  loadComments(ids: readonly string[]): PromiseLike<ArrayLike<CommentRecord | undefined | Error>>;
  loadMediaFacts(ids: readonly string[]): PromiseLike<ArrayLike<CommentMediaFacts | undefined | Error>>;
}

export function createCommentsContext(
  viewer: ViewerOf,
  call: SocialCallOf,
  comments: CommentsService,
  events: SocialEventFeed,
  reads: CommentReads = comments,
): CommentsContext {
  // The loaders are made when first asked for: a subscription event runs under a context of its own per subscriber
  // (a thousand per second in the bench), and most of its selections use one loader or none.
  let commentLoader: CommentsContext['commentLoader'] | undefined;
  let mediaLoader: CommentsContext['mediaLoader'] | undefined;
  let commentsCountLoader: CommentsContext['commentsCountLoader'] | undefined;
  let listLoader: CommentsContext['listLoader'] | undefined;
  const context: CommentsContext = {
    viewer,
    call,
    comments,
    events,
    get commentLoader() {
      return (commentLoader ??= new DataLoader((ids: readonly string[]) => reads.loadComments(ids)));
    },
    get mediaLoader() {
      return (mediaLoader ??= new DataLoader((ids: readonly string[]) => reads.loadMediaFacts(ids)));
    },
    get commentsCountLoader() {
      return (commentsCountLoader ??= new DataLoader((ids: readonly string[]) => comments.countComments(ids)));
    },
    get listLoader() {
      return (listLoader ??= createListLoader());
    },
  };
  return context;

  function createListLoader(): CommentsContext['listLoader'] {
    return new DataLoader(
      async (keys: readonly ListKey[]) => {
        // Group the keys by page request; each group is one windowed SELECT over all its parents.
        const groups = new Map<string, ListKey[]>();
        for (const key of keys) {
          const group = pageKey(key);
          const members = groups.get(group);
          if (members) members.push(key);
          else groups.set(group, [key]);
        }
        const pages = new Map<ListKey, Page<CommentRecord> | Error>();
        await Promise.all(
          [...groups.values()].map(async (group) => {
            const { kind } = group[0]!;
            try {
              const request = comments.readPage(kind, group[0]!);
              // The media were read already (a media's comments are checked against it first; the replies resolver primes
              // the loader with its comment's media), so this is the loader's cache, not a statement.
              const facts = await context.mediaLoader.loadMany([...new Set(group.map((key) => key.mediaId))]);
              const factsOf = new Map<string, CommentMediaFacts | undefined>();
              for (const media of facts) {
                if (media instanceof Error) throw media;
                if (media) factsOf.set(media.id, media);
              }
              const results = await comments.listBatch(
                kind,
                group.map((key) => ({ id: key.parentId, media: factsOf.get(key.mediaId) })),
                request,
              );
              group.forEach((key, index) => pages.set(key, results[index]!));
            } catch (error) {
              for (const key of group) pages.set(key, error as Error);
            }
          }),
        );
        return keys.map((key) => pages.get(key)!);
      },
      { cacheKeyFn: (key) => `${pageKey(key)}|${key.parentId}` },
    );
  }
}

/**
 * The page a list key asks for (kind, size, cursors), as a string that tells any two apart: the cursors are written as
 * JSON strings (quoted, so a `|` inside one cannot pass for a separator), the rest holds no `|`. Cheaper than
 * JSON.stringify of an array, which ran once per key (hundreds per deep read) for the group and again for the cache key.
 */
function pageKey(key: ListKey): string {
  const cursor = (value: string | null | undefined) => (value === null || value === undefined ? '' : JSON.stringify(value));
  return `${key.kind}|${key.first ?? ''}|${cursor(key.after)}|${cursor(key.before)}`;
}

/** The comment an event is about, as it is now: null when deleted (or none: a mention in a caption). */
export async function eventComment(context: CommentsContext, event: SocialEventRecord) {
  if (event.kind === 'comment_deleted') return null;
  const id = event.kind === 'mentioned' ? event.value.comment_id : event.value.id;
  if (typeof id !== 'string') return null;
  return (await context.commentLoader.load(id)) ?? null;
}
