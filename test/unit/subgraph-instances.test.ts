import { describe, expect, it } from 'vitest';
import { createSubgraphInstances } from '../../gateway/subgraph-instances.ts';

describe("a subgraph's instances", () => {
  it('are taken in turn', () => {
    const instances = createSubgraphInstances(3);
    expect([0, 1, 2, 3, 4, 5].map(() => instances.pick())).toEqual([0, 1, 2, 0, 1, 2]);
  });

  it('skip one whose circuit opened after three failures in a row, until a trial after openMs; an answer closes it', () => {
    let now = 0;
    const instances = createSubgraphInstances(2, { failureThreshold: 3, openMs: 1000, now: () => now });
    instances.failed(0);
    instances.failed(0);
    expect(instances.openCircuits()).toBe(0);
    instances.answered(0);
    for (let i = 0; i < 3; i++) instances.failed(0);
    expect(instances.openCircuits()).toBe(1);
    expect([instances.pick(), instances.pick(), instances.pick()]).toEqual([1, 1, 1]);
    now = 1000;
    // Half open: one trial goes to the instance, the others keep skipping it while the trial is out.
    expect(instances.pick()).toBe(0);
    expect([instances.pick(), instances.pick()]).toEqual([1, 1]);
    instances.failed(0);
    expect(instances.openCircuits()).toBe(1);
    expect(instances.pick()).toBe(1);
    now = 2000;
    expect(instances.pick()).toBe(0);
    instances.answered(0);
    expect(instances.openCircuits()).toBe(0);
    expect([instances.pick(), instances.pick()]).toEqual([1, 0]);
  });

  it('give a trial whose verdict never comes openMs, then try the instance again', () => {
    let now = 0;
    const instances = createSubgraphInstances(2, { failureThreshold: 1, openMs: 1000, now: () => now });
    instances.failed(0);
    now = 1000;
    expect(instances.pick()).toBe(0);
    now = 1999;
    expect([instances.pick(), instances.pick()]).toEqual([1, 1]);
    now = 2000;
    expect(instances.pick()).toBe(0);
  });

  it('pass over the instances a fetch already failed on, and with every circuit open still name one', () => {
    let now = 0;
    const instances = createSubgraphInstances(3, { failureThreshold: 1, openMs: 1000, now: () => now });
    expect(instances.pick(new Set([0, 1]))).toBe(2);
    instances.failed(1);
    now = 10;
    instances.failed(2);
    now = 20;
    instances.failed(0);
    expect(instances.openCircuits()).toBe(3);
    // The circuit that opened first.
    expect(instances.pick()).toBe(1);
    expect(instances.pick(new Set([1]))).toBe(2);
  });
});
