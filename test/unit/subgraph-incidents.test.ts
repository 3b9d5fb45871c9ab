import { describe, expect, it } from 'vitest';
import { createSubgraphIncidents } from '../../gateway/subgraph-incidents.ts';
import { createLogger } from '../../lib/logger.ts';
import { createLogCapture } from '../support/log-capture.ts';

describe('subgraph incidents in the gateway log', () => {
  it('one warn line when a subgraph goes down, one a minute while it stays down, one when it answers again', () => {
    const capture = createLogCapture();
    let now = 1_000_000;
    const incidents = createSubgraphIncidents(createLogger({ level: 'info', destination: capture }), () => now);
    const reason = 'request to http://10.0.0.7:4002/graphql failed, reason: connect ECONNREFUSED 10.0.0.7:4002';
    for (let i = 0; i < 500; i++) incidents.failed('comments', reason);
    expect(incidents.down()).toEqual(['comments']);
    now += 60_000;
    incidents.failed('comments', reason);
    now += 5_000;
    incidents.answered('comments');
    incidents.answered('comments');
    incidents.answered('users');
    const lines = capture.entries().map(({ level, msg, subgraph, failedFetches, downForMs }) => ({ level, msg, subgraph, failedFetches, downForMs }));
    expect(lines).toEqual([
      { level: 40, msg: 'subgraph unavailable: its fields are answered null with SERVICE_UNAVAILABLE', subgraph: 'comments', failedFetches: undefined, downForMs: undefined },
      { level: 40, msg: 'subgraph still unavailable', subgraph: 'comments', failedFetches: 501, downForMs: 60_000 },
      { level: 40, msg: 'subgraph recovered', subgraph: 'comments', failedFetches: 501, downForMs: 65_000 },
    ]);
    // The first line says why, with the address: the log is the operator's, not the client's.
    expect(capture.entries()[0]!.reason).toBe(reason);
    expect(incidents.down()).toEqual([]);
  });
});
