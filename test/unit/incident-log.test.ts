import { describe, expect, it } from 'vitest';
import { createLogger } from '../../lib/logger.ts';
import { createIncidentLog } from '../../lib/telemetry/incident-log.ts';
import { createLogCapture } from '../support/log-capture.ts';
import { createManualClock } from '../support/manual-clock.ts';

function setUp(options: { impact?: string } = {}) {
  const capture = createLogCapture();
  const clock = createManualClock();
  const log = createIncidentLog({ logger: createLogger({ level: 'info', destination: capture }), what: 'database', clock, ...options });
  const lines = () =>
    capture.entries().map(({ level, msg, reason, newFailures, totalFailures, downForMs }) => ({
      level,
      msg,
      reason,
      newFailures,
      totalFailures,
      downForMs,
    }));
  return { capture, clock, log, lines };
}

const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });

describe('the incident log of an unreachable dependency', () => {
  it('one error line when it stops answering, a reminder a minute with the failures since the last line, one line when it answers again', () => {
    const { clock, log, lines } = setUp();
    for (let i = 0; i < 1100; i++) log.failed(refused);
    expect(log.open).toBe(true);
    clock.advance(59_999);
    expect(lines()).toHaveLength(1);
    clock.advance(1);
    for (let i = 0; i < 40; i++) log.failed('timeout exceeded when trying to connect');
    clock.advance(60_000);
    clock.advance(5_000);
    log.succeeded();
    log.succeeded();
    expect(log.open).toBe(false);
    expect(lines()).toEqual([
      {
        level: 50,
        msg: 'database unreachable',
        reason: 'connect ECONNREFUSED 127.0.0.1:5432',
        newFailures: undefined,
        totalFailures: undefined,
        downForMs: undefined,
      },
      {
        level: 40,
        msg: 'database still unreachable',
        reason: 'connect ECONNREFUSED 127.0.0.1:5432',
        newFailures: 1099,
        totalFailures: 1100,
        downForMs: 60_000,
      },
      {
        level: 40,
        msg: 'database still unreachable',
        reason: 'timeout exceeded when trying to connect',
        newFailures: 40,
        totalFailures: 1140,
        downForMs: 120_000,
      },
      { level: 40, msg: 'database recovered', reason: undefined, newFailures: undefined, totalFailures: 1140, downForMs: 125_000 },
    ]);
  });

  it('writes the reason, never a stack, and names what it is about on every line', () => {
    const capture = createLogCapture();
    const clock = createManualClock();
    const log = createIncidentLog({
      logger: createLogger({ level: 'info', destination: capture }),
      what: 'subgraph',
      impact: 'its fields are answered null',
      fields: { subgraph: 'comments' },
      clock,
    });
    log.failed(refused);
    log.failed(refused);
    clock.advance(60_000);
    log.succeeded();
    const entries = capture.entries();
    expect(entries.map((entry) => [entry.msg, entry.subgraph])).toEqual([
      ['subgraph unreachable: its fields are answered null', 'comments'],
      ['subgraph still unreachable', 'comments'],
      ['subgraph recovered', 'comments'],
    ]);
    expect(capture.text).not.toMatch(/stack|\\n\s+at /);
    expect(entries[0]).not.toHaveProperty('err');
  });

  it('no reminder for a minute without failures, and no timer left once failures stop or the incident ends', () => {
    const { clock, log, lines } = setUp();
    log.failed(refused);
    expect(clock.pending()).toBe(0);
    clock.advance(600_000);
    expect(lines()).toHaveLength(1);
    // A failure long after the last line is reported at once, in a line of its own.
    log.failed(refused);
    expect(clock.pending()).toBe(1);
    clock.advance(0);
    expect(lines().map((line) => [line.msg, line.newFailures, line.downForMs])).toEqual([
      ['database unreachable', undefined, undefined],
      ['database still unreachable', 1, 600_000],
    ]);
    expect(clock.pending()).toBe(0);
    log.failed(refused);
    log.succeeded();
    expect(clock.pending()).toBe(0);
    expect(lines().map((line) => [line.msg, line.totalFailures])).toEqual([
      ['database unreachable', undefined],
      ['database still unreachable', 2],
      ['database recovered', 3],
    ]);
  });

  it('a success with no incident open says nothing; the next failure begins a new incident', () => {
    const { clock, log, lines } = setUp();
    log.succeeded();
    log.failed(refused);
    clock.advance(2_000);
    log.succeeded();
    clock.advance(1_000);
    log.failed(new AggregateError([new Error('connect ECONNREFUSED ::1:5432'), new Error('connect ECONNREFUSED 127.0.0.1:5432')]));
    expect(lines()).toEqual([
      {
        level: 50,
        msg: 'database unreachable',
        reason: 'connect ECONNREFUSED 127.0.0.1:5432',
        newFailures: undefined,
        totalFailures: undefined,
        downForMs: undefined,
      },
      { level: 40, msg: 'database recovered', reason: undefined, newFailures: undefined, totalFailures: 1, downForMs: 2_000 },
      {
        level: 50,
        msg: 'database unreachable',
        reason: 'connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432',
        newFailures: undefined,
        totalFailures: undefined,
        downForMs: undefined,
      },
    ]);
  });

  it('close() cancels the pending reminder and ignores what comes after', () => {
    const { clock, log, lines } = setUp();
    log.failed(refused);
    log.failed(refused);
    expect(clock.pending()).toBe(1);
    log.close();
    expect(clock.pending()).toBe(0);
    log.failed(refused);
    log.succeeded();
    clock.advance(120_000);
    expect(lines().map((line) => line.msg)).toEqual(['database unreachable']);
    expect(log.open).toBe(false);
  });
});
