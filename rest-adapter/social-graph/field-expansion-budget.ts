import { GRAPH_ERRORS } from './graph-errors.ts';
import { GraphReplyError } from './graph-reply-error.ts';

/**
 * What one `fields=` expansion may ask for. The parser already bounds its text (8 192 characters) and nesting (16
 * levels), but neither bounds the work: every edge multiplies what is inside it by its page size, so
 * `media{comments{media{comments{media{comments}}}}}` is 24 characters of text and ~400 000 objects, and ran for 40 s
 * before ending the process. The budget is counted while the GraphQL document is built, before anything runs:
 *
 * - objects: the most objects the reply could hold — each edge contributes its page size (its `.limit()`, or 25,
 *   capped by the edge's maximum) times the objects of its parent; a node or an expansion by parameter contributes one
 *   per parent. The real data usually holds fewer; the bound is on what the request asks for, as a cost limit is.
 * - edges: how many edges, lists and expansions by parameter the expansion names, however few objects they hold (each
 *   is a query and a page to assemble).
 *
 * Past either, the request is refused with the platform's own error for too much data (code 1) before any work is done.
 * The REST adapter also bounds the time a request may take (REST_FIELDS_TIMEOUT_MS).
 */
export interface ExpansionLimits {
  /** Most objects an expansion may ask for (REST_FIELDS_MAX_OBJECTS). */
  maxObjects: number;
  /** Most edges, lists and expansions by parameter (REST_FIELDS_MAX_EDGES). */
  maxEdges: number;
}

export const DEFAULT_EXPANSION_LIMITS: ExpansionLimits = { maxObjects: 50_000, maxEdges: 64 };

/** Page size of an edge whose `.limit()` is not given, and the largest any edge serves. */
export const DEFAULT_PAGE_SIZE = 25;
export const DEFAULT_PAGE_MAX = 100;

export class ExpansionBudget {
  private objects = 0;
  private edges = 0;

  constructor(private readonly limits: ExpansionLimits) {}

  /**
   * Counts a field that holds objects — `perParent` of them for each of `parents` — and returns how many that makes
   * (the parents of whatever it holds). Throws the platform's error once past a bound.
   */
  count(parents: number, perParent: number, isEdge: boolean): number {
    const holds = parents * perParent;
    this.objects += holds;
    if (isEdge) this.edges++;
    if (this.edges > this.limits.maxEdges) {
      throw new GraphReplyError(
        GRAPH_ERRORS.tooMuchData(`The fields parameter names more than ${this.limits.maxEdges} edges; ask for fewer at a time.`),
      );
    }
    if (this.objects > this.limits.maxObjects) {
      throw new GraphReplyError(
        GRAPH_ERRORS.tooMuchData(
          `The fields parameter could return more than ${this.limits.maxObjects} objects; use smaller .limit() values or fewer nested edges.`,
        ),
      );
    }
    return holds;
  }
}
