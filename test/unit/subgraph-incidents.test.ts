import { describe, expect, it } from 'vitest';
import { createSubgraphIncidents } from '../../gateway/subgraph-incidents.ts';
import { createLogger } from '../../lib/logger.ts';
import { createLogCapture } from '../support/log-capture.ts';
import { createManualClock } from '../support/manual-clock.ts';

describe('subgraph incidents in the gateway log', () => {
  it('one error line when a subgraph goes down, at most one a minute while it stays down, one when it answers again', () => {
    const capture = createLogCapture();
    const clock = createManualClock();
    const incidents = createSubgraphIncidents(createLogger({ level: 'info', destination: capture }), clock);
    const reason = 'request to http://10.0.0.7:4002/graphql failed, reason: connect ECONNREFUSED 10.0.0.7:4002';
    for (let i = 0; i < 500; i++) incidents.failed('comments', reason);
    incidents.failed('users', reason);
    incidents.answered('users');
    expect(incidents.down()).toEqual(['comments']);
    clock.advance(60_000);
    incidents.failed('comments', reason);
    clock.advance(5_000);
    incidents.answered('comments');
    incidents.answered('comments');
    incidents.answered('accounts');
    const lines = capture.entries().map(({ level, msg, subgraph, newFailures, totalFailures, downForMs }) => ({
      level,
      msg,
      subgraph,
      newFailures,
      totalFailures,
      downForMs,
    }));
    expect(lines).toEqual([
      {
        level: 50,
        msg: 'subgraph unreachable: its fields are answered null with SERVICE_UNAVAILABLE',
        subgraph: 'comments',
        newFailures: undefined,
        totalFailures: undefined,
        downForMs: undefined,
      },
      {
        level: 50,
        msg: 'subgraph unreachable: its fields are answered null with SERVICE_UNAVAILABLE',
        subgraph: 'users',
        newFailures: undefined,
        totalFailures: undefined,
        downForMs: undefined,
      },
      { level: 40, msg: 'subgraph recovered', subgraph: 'users', newFailures: undefined, totalFailures: 1, downForMs: 0 },
      { level: 40, msg: 'subgraph still unreachable', subgraph: 'comments', newFailures: 499, totalFailures: 500, downForMs: 60_000 },
      { level: 40, msg: 'subgraph recovered', subgraph: 'comments', newFailures: undefined, totalFailures: 501, downForMs: 65_000 },
    ]);
    // The first line says why, with the address: the log is the operator's, not the client's.
    expect(capture.entries()[0]!.reason).toBe(reason);
    expect(incidents.down()).toEqual([]);
    expect(clock.pending()).toBe(0);
  });

  it('close() stops the reminders of the subgraphs still down', () => {
    const capture = createLogCapture();
    const clock = createManualClock();
    const incidents = createSubgraphIncidents(createLogger({ level: 'info', destination: capture }), clock);
    incidents.failed('comments', 'refused');
    incidents.failed('comments', 'refused');
    expect(clock.pending()).toBe(1);
    incidents.close();
    expect(clock.pending()).toBe(0);
    clock.advance(120_000);
    expect(capture.entries().map((entry) => entry.msg)).toEqual([
      'subgraph unreachable: its fields are answered null with SERVICE_UNAVAILABLE',
    ]);
  });
});
