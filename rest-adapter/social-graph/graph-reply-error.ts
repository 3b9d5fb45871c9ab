import type { GraphErrorReply } from './graph-errors.ts';

/** A request error already in the Graph envelope (unknown field, bad modifier, too much data): the route sends it as it is. */
export class GraphReplyError extends Error {
  constructor(readonly reply: GraphErrorReply) {
    super(reply.body.error.message);
    this.name = 'GraphReplyError';
  }
}
