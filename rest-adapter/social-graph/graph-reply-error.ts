import type { GraphErrorReply } from './graph-errors.ts';

/** A request error already in the Graph envelope (unknown field, bad modifier, too much data): the route sends it as it is. */
export class GraphReplyError extends Error {
  constructor(readonly reply: GraphErrorReply) {
    super(reply.body.error.message);
    this.name = 'GraphReplyError';
  }
}

/**
 * A refusal the route table decides without asking the graph: a first segment that is no id of a kind it routes, or a
 * method or edge the node does not have. The platform checks the token before it looks anything up, so the dispatcher
 * sends such a refusal only once the social services have checked the token (a token error wins over it).
 */
export class RouteRefusal extends GraphReplyError {
  override name = 'RouteRefusal';
}
