import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createSubgraphErrorFormatter } from '../../lib/graphql/graphql-errors.ts';
import { createLogger } from '../../lib/logger.ts';
import { toGrpcStatus } from '../../subgraphs/users/grpc/grpc-status.ts';
import { createLogCapture } from '../support/log-capture.ts';

/**
 * What the GraphQL and gRPC error mappings log (issue 25, item 5): the database unreachable is the database's incident
 * log's to tell, once per incident (lib/telemetry/telemetry.ts), so not a line here per failed request; a bug is logged
 * each time, with its stack; a statement cancelled for taking too long as before.
 */
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
const bug = () => new TypeError("Cannot read properties of undefined (reading 'id')");
const cancelled = () => Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });

function setUp() {
  const capture = createLogCapture();
  const logger = createLogger({ level: 'info', destination: capture });
  const format = createSubgraphErrorFormatter(logger);
  const graphql = (original: Error) => {
    const error = new GraphQLError(original.message, { path: ['userExample'], originalError: original });
    return format(error.toJSON(), error);
  };
  const grpc = (thrown: Error) => toGrpcStatus(thrown, logger, 'GetByID');
  return { capture, graphql, grpc };
}

describe('what the error mappings log of a database that cannot be reached', () => {
  it('answers UNAVAILABLE on both doors and writes no line per request: the incident log of the database says it', () => {
    const { capture, graphql, grpc } = setUp();
    for (let i = 0; i < 50; i++) {
      expect(graphql(refused()).extensions).toEqual({ code: 'SERVICE_UNAVAILABLE' });
      expect(grpc(refused()).code).toBe(14);
    }
    expect(capture.entries()).toEqual([]);
  });

  it('logs every bug, each with its stack, and every statement cancelled for taking too long', () => {
    const { capture, graphql, grpc } = setUp();
    for (let i = 0; i < 3; i++) {
      expect(graphql(bug())).toMatchObject({ message: 'internal error', extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      expect(grpc(bug()).code).toBe(13);
    }
    expect(graphql(cancelled()).extensions).toEqual({ code: 'SERVICE_UNAVAILABLE' });
    const lines = capture.entries() as { level: number; msg: string; err?: { stack?: string } }[];
    expect(lines.map((line) => [line.level, line.msg])).toEqual([
      ...Array.from({ length: 3 }, () => [
        [50, 'resolver error'],
        [50, 'gRPC service error'],
      ]).flat(),
      [50, 'resolver error'],
    ]);
    for (const line of lines) expect(line.err?.stack).toMatch(/\n\s+at /);
  });
});
