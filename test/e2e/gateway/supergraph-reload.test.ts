import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUPERGRAPH_FILE } from '../../../schema/supergraph-file.ts';
import { eventually } from '../../support/eventually.ts';
import { createLogCapture, parseMetrics, sampleValue } from '../../support/log-capture.ts';
import { CREATE, GET, validInput } from '../../support/graphql-client.ts';
import { startDistributedTestSystem, type TestSystem } from '../../support/test-system.ts';

/**
 * The gateway's supergraph reloaded while it serves (issue 25, item 4): a changed file is swapped in — watched, or on
 * request as SIGHUP asks — with reads and writes in flight and none failing; a broken file is refused with one error
 * line however often it is written, and the supergraph loaded before serves on. The distributed topology in one
 * process (subgraphs over HTTP), as the gateway process runs it. SIGHUP itself is sent to real processes in the fleet
 * test (test/fleet).
 */

const ORIGINAL_DESCRIPTION = 'The professional account of an own-login token (GET /me on the own-login host).';
const NEW_DESCRIPTION = 'Reloaded: the professional account of an own-login token.';
const DESCRIPTION_QUERY = '{ __type(name: "Query") { fields { name description } } }';

describe('supergraph reload', () => {
  let system: TestSystem;
  let dir: string;
  let file: string;
  let original: string;
  const logs = createLogCapture();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tributary-supergraph-'));
    file = join(dir, 'supergraph.graphql');
    original = await readFile(SUPERGRAPH_FILE, 'utf8');
    expect(original).toContain(ORIGINAL_DESCRIPTION);
    await writeFile(file, original);
    system = await startDistributedTestSystem(
      { SUPERGRAPH_FILE: file, SUPERGRAPH_WATCH: 'true', LOG_LEVEL: 'info' },
      { logDestination: logs },
    );
  });
  afterAll(async () => {
    await system?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Replaces the file as deploy tools do: a new file renamed over the old one. */
  const replaceFile = async (text: string) => {
    const next = `${file}.next`;
    await writeFile(next, text);
    await rename(next, file);
  };

  const graphql = async (query: string, variables?: Record<string, unknown>) => {
    const response = await fetch(system.gatewayUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${system.adminToken()}` },
      body: JSON.stringify({ query, variables }),
    });
    return { status: response.status, body: (await response.json()) as { data?: any; errors?: unknown[] } };
  };

  const meDescription = async (): Promise<string | undefined> => {
    const { body } = await graphql(DESCRIPTION_QUERY);
    return (body.data?.__type?.fields as { name: string; description: string }[] | undefined)?.find((field) => field.name === 'me')
      ?.description;
  };

  /** Reads and writes in a loop until stopped; every reply that is not a clean 200 is kept. */
  const load = (workers: number) => {
    let running = true;
    const failures: unknown[] = [];
    let requests = 0;
    const worker = async () => {
      while (running) {
        sequence += 1;
        const created = await graphql(CREATE, { input: validInput({ email: `reload-${sequence}@example.com` }) });
        requests += 1;
        if (created.status !== 200 || created.body.errors) {
          failures.push(created);
          continue;
        }
        const read = await graphql(GET, { id: created.body.data.createUserExample.id });
        requests += 1;
        if (read.status !== 200 || read.body.errors || read.body.data.userExample === null) failures.push(read);
      }
    };
    const running$ = Promise.all(Array.from({ length: workers }, worker));
    return {
      /** Waits until `count` more requests have been answered: the gateway served them meanwhile. */
      runs: async (count: number, what: string) => {
        const from = requests;
        await eventually(() => requests >= from + count, `${count} requests answered ${what}`);
      },
      stop: async () => {
        running = false;
        await running$;
        return { failures, requests };
      },
    };
  };

  let sequence = 0;
  const refusals = () => logs.entries().filter((entry) => entry.msg === 'supergraph refused: the one loaded before keeps serving');

  it('swaps in a changed file under load: no request fails', async () => {
    expect(await meDescription()).toBe(ORIGINAL_DESCRIPTION);
    const traffic = load(4);
    await traffic.runs(8, 'before the change');
    await replaceFile(original.replace(ORIGINAL_DESCRIPTION, NEW_DESCRIPTION));
    await eventually(async () => (await meDescription()) === NEW_DESCRIPTION, 'the watched change applied');
    await traffic.runs(8, 'on the changed supergraph');
    const { failures, requests } = await traffic.stop();
    expect(failures).toEqual([]);
    expect(requests).toBeGreaterThan(0);
    expect(logs.entries().filter((entry) => entry.msg === 'supergraph reloaded')).toHaveLength(1);
  });

  it('refuses a broken file with one error line, however often it is written, and serves on', async () => {
    const traffic = load(2);
    const broken = original.replace('type Query', 'type Query {');
    await replaceFile(broken);
    await eventually(async () => refusals().length === 1, 'the broken file refused');
    // Written again (the same text, then a read on request, as SIGHUP asks): refused, not reported again.
    await replaceFile(broken);
    expect(await system.reloadSupergraph!('call')).toBe('refused');
    const { failures } = await traffic.stop();
    expect(failures).toEqual([]);
    expect(refusals()).toHaveLength(1);
    expect(refusals()[0]).toMatchObject({ level: 50, trigger: 'watch', path: file });
    expect(String(refusals()[0]!.reason)).toMatch(/Syntax Error/);
    expect(await meDescription()).toBe(NEW_DESCRIPTION);
  });

  it('refuses a supergraph naming a subgraph the gateway has no URL for', async () => {
    const foreign = original.replace(
      /(\n\s*USERS @join__graph\(name: "users", url: "[^"]*"\))/,
      '$1\n  REVIEWS @join__graph(name: "reviews", url: "http://reviews.invalid/graphql")',
    );
    expect(foreign).not.toBe(original);
    await replaceFile(foreign);
    expect(await system.reloadSupergraph!('call')).toBe('refused');
    expect(refusals()).toHaveLength(2);
    expect(String(refusals()[1]!.reason)).toContain('no URL configured for subgraph reviews');
    expect(await meDescription()).toBe(NEW_DESCRIPTION);
  });

  it('applies the file again once it is fixed, on request, and counts every outcome', async () => {
    await replaceFile(original);
    // The watch or the request, whichever reads it first, applies it; the other finds it unchanged.
    expect(['applied', 'unchanged']).toContain(await system.reloadSupergraph!('call'));
    await eventually(async () => (await meDescription()) === ORIGINAL_DESCRIPTION, 'the fixed file applied');
    expect(await system.reloadSupergraph!('call')).toBe('unchanged');
    const metrics = parseMetrics(await (await fetch(new URL('/metrics', system.gatewayUrl))).text());
    expect(sampleValue(metrics, 'tributary_supergraph_reloads_total', { outcome: 'applied' })).toBe(2);
    expect(sampleValue(metrics, 'tributary_supergraph_reloads_total', { outcome: 'refused' })).toBeGreaterThanOrEqual(3);
  });
});
