import fc from 'fast-check';
import { excerpt, type Problem, type ProblemKind } from './error-formats.ts';
import { fuzzSettings, propertyParameters } from './fuzz-settings.ts';
import type { FuzzSystem } from './fuzz-system.ts';
import type { SystemInfo } from './fuzz-system-protocol.ts';
import { httpExchange } from './http-exchange.ts';

/**
 * One fuzz case, whatever the door: send the generated request within the bound, judge the reply in the area's format,
 * check the process is alive and the door still answers a known-good request (on a fresh connection and on the one the
 * case used), and — when the request was refused — that no table changed. Every problem fails the property with a
 * description of the request that a person can replay, what came back, and what the server logged meanwhile.
 */

export interface CaseOutcome {
  problems: Problem[];
  /** The request was refused: the stored data must be as it was. */
  rejected: boolean;
  /** A 503 / UNAVAILABLE came back: excused only while /ready says a dependency is down. */
  unavailable: boolean;
  /** What came back, one line (for the failure text). */
  summary: string;
  /** A short class of the reply ("400 code 3: invalid …"), counted when FUZZ_VERBOSE is set, to see what a run reached. */
  label?: string;
}

export interface FuzzDoor<Input> {
  name: string;
  /** Sends one generated request and judges what came back. */
  exchange(input: Input, system: FuzzSystem): Promise<CaseOutcome>;
  /** Known-good requests on this door: problems when one no longer answers as it should. */
  probe(system: FuzzSystem): Promise<Problem[]>;
  /** The request as a person would replay it (curl, bytes, a gRPC call). */
  describe(input: Input, info: SystemInfo): string;
  /** True when the probe itself writes (an upload): the next case takes a fresh digest. */
  probeWrites?: boolean;
  /**
   * Tables a refused request may change, each with the reason (bookkeeping the reference itself keeps for refused
   * requests, never the data the request carried).
   */
  bookkeepingTables?: Readonly<Record<string, string>>;
}

/** Counts of one door file's run, printed when it ends (the numbers the done-when line asks for). */
export class FuzzTally {
  /** How many properties the door file checks on its system: FUZZ_RUNS is shared out among them. */
  constructor(readonly properties: number) {}

  readonly cases = new Map<string, number>();
  readonly failures = new Map<ProblemKind, number>();
  readonly restarts: string[] = [];
  readonly labels = new Map<string, number>();

  observe(property: string, label: string | undefined): void {
    if (label === undefined) return;
    const key = `${property} → ${label}`;
    this.labels.set(key, (this.labels.get(key) ?? 0) + 1);
  }

  count(property: string): void {
    this.cases.set(property, (this.cases.get(property) ?? 0) + 1);
  }

  fail(problems: readonly Problem[]): void {
    for (const kind of new Set(problems.map((problem) => problem.kind))) this.failures.set(kind, (this.failures.get(kind) ?? 0) + 1);
  }

  summary(door: string, database: string): string {
    const total = [...this.cases.values()].reduce((sum, n) => sum + n, 0);
    const kinds: ProblemKind[] = ['crash', 'hang', 'dropped', '5xx', 'format', 'stored-change', 'verdict', 'liveness'];
    const failed = kinds.map((kind) => `${kind} ${this.failures.get(kind) ?? 0}`).join(', ');
    const perProperty = [...this.cases.entries()].map(([name, n]) => `  ${n} × ${name}`).join('\n');
    const labels = process.env.FUZZ_VERBOSE
      ? `\n  replies:\n${[...this.labels.entries()]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([label, n]) => `    ${String(n).padStart(5)} ${label}`)
          .join('\n')}`
      : '';
    return `[fuzz ${door} on ${database}] seed ${fuzzSettings().seed}: ${total} cases (shrinking included); failing cases: ${failed}${
      this.restarts.length ? `; system restarted ${this.restarts.length}×` : ''
    }\n${perProperty}${labels}`;
  }
}

const PROBLEM_ORDER: ProblemKind[] = ['crash', 'hang', 'dropped', '5xx', 'format', 'stored-change', 'verdict', 'liveness'];

/** Replaces every token of the system's seed data by its name, so failure texts are readable and stable across runs. */
export function redactTokens(text: string, info: SystemInfo): string {
  const names: [string, string][] = [
    [info.areaA.adminToken, '<areaA admin token>'],
    [info.areaA.expiredToken, '<areaA expired token>'],
    ...Object.entries(info.areaA.userTokens).map(([id, token]): [string, string] => [token, `<areaA token of user ${id}>`]),
    ...Object.entries(info.social.tokens).map(([name, token]): [string, string] => [token, `<social ${name} token>`]),
    [info.media.appBearer, '<media app-only bearer>'],
    // An app token carries a `|`, which a query string or a form body percent-encodes.
    ...Object.entries(info.webhooks.apps).flatMap(([name, app]): [string, string][] => [
      [app.token, `<${name} app token>`],
      [encodeURIComponent(app.token), `<${name} app token>`],
    ]),
    ...Object.entries(info.webhooks.tokens).map(([name, token]): [string, string] => [token, `<social ${name} token>`]),
  ];
  let out = text;
  for (const [token, name] of names) if (token) out = out.split(token).join(name);
  return out;
}

class FuzzFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FuzzFailure';
  }
}

/**
 * Bookkeeping any door may change with a refused request: the social graph's rate-limit counters count every call a
 * social subgraph admits — refused afterwards for its token, its parameters or its body, as the platform counts them —
 * and every door reaches the social subgraphs (the Graph paths, GraphQL, raw HTTP on their listeners).
 */
const EVERY_DOOR_BOOKKEEPING: Readonly<Record<string, string>> = {
  'social.rate_counter': 'the social graph counts each call it admits, whatever becomes of it (reference §3.4)',
};

interface DigestCache {
  generation: number;
  tables: Record<string, string> | undefined;
}

/** Whether the system reports a dependency down (which is what excuses a 503). */
async function dependencyDown(info: SystemInfo, timeoutMs: number): Promise<boolean> {
  const outcome = await httpExchange({ method: 'GET', url: new URL('/ready', info.restUrl).toString(), timeoutMs });
  return outcome.kind !== 'reply' || outcome.status !== 200;
}

function diffTables(before: Record<string, string>, after: Record<string, string>, ignored: Readonly<Record<string, string>>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => !(name in ignored) && before[name] !== after[name]).sort();
}

/**
 * The tables (and the blob store) that differ between two digests, apart from the bookkeeping every door may change and
 * the door's own: for a door that checks its requests one by one (a sequence of commands, some refused) rather than once
 * per case.
 */
export function storedChanges(
  before: Record<string, string>,
  after: Record<string, string>,
  bookkeeping: Readonly<Record<string, string>> = {},
): string[] {
  return diffTables(before, after, { ...EVERY_DOOR_BOOKKEEPING, ...bookkeeping });
}

/**
 * Runs one case and throws a FuzzFailure describing it when anything is wrong. Exported for the named regression tests,
 * which run their one payload through the same oracles.
 */
export async function runFuzzCase<Input>(
  door: FuzzDoor<Input>,
  system: FuzzSystem,
  input: Input,
  cache: DigestCache = { generation: 0, tables: undefined },
  observe: (label: string | undefined) => void = () => undefined,
): Promise<void> {
  const settings = fuzzSettings();
  await system.ensureRunning();
  const info = system.info;
  if (cache.generation !== system.generation) {
    cache.generation = system.generation;
    cache.tables = undefined;
  }
  const before = cache.tables ?? (await system.digest());
  cache.tables = undefined;
  const mark = system.logMark();
  const problems: Problem[] = [];

  const outcome = await door.exchange(input, system);
  observe(outcome.label);
  problems.push(...outcome.problems);
  if (outcome.unavailable && !problems.some((problem) => problem.kind === '5xx')) {
    if (!(await dependencyDown(info, settings.requestTimeoutMs))) {
      problems.push({ kind: '5xx', detail: `UNAVAILABLE / 503 while /ready says every dependency is up: ${outcome.summary}` });
    }
  }

  // A connection dropped or left hanging is often the process dying: give its exit a moment to be seen.
  if (problems.some((problem) => problem.kind === 'dropped' || problem.kind === 'hang')) await system.diesWithin(1_000);

  const died = () => {
    const death = system.death();
    if (death && !problems.some((problem) => problem.kind === 'crash')) {
      problems.push({
        kind: 'crash',
        detail: `the system process ended (exit code ${death.code}, signal ${death.signal}):\n${death.stderr}`,
      });
    }
    return death !== undefined;
  };

  if (!died() && outcome.rejected) {
    try {
      const after = await system.digest();
      const changed = diffTables(before, after, { ...EVERY_DOOR_BOOKKEEPING, ...door.bookkeepingTables });
      if (changed.length > 0) problems.push({ kind: 'stored-change', detail: `a refused request changed ${changed.join(', ')}` });
      cache.tables = after;
    } catch (error) {
      if (!died()) problems.push({ kind: 'liveness', detail: `the database digest failed after the request: ${(error as Error).message}` });
    }
  }

  if (!died()) {
    const probeProblems = await door.probe(system);
    problems.push(...probeProblems);
    if (door.probeWrites) cache.tables = undefined;
    died();
  }

  if (problems.length === 0) return;
  problems.sort((a, b) => PROBLEM_ORDER.indexOf(a.kind) - PROBLEM_ORDER.indexOf(b.kind));
  const logs = system
    .logsSince(mark)
    .map((line) => `    ${excerpt(redactTokens(line, info), 1500)}`)
    .join('\n');
  // A dead, hung or unanswering system is replaced so that the next case (a shrink step) starts from a working one; one
  // that answers its probes again (a connection went bad, not the process) is kept.
  if (
    system.death() ||
    (problems.some((problem) => problem.kind === 'liveness' || problem.kind === 'hang') && (await door.probe(system)).length > 0)
  ) {
    await system.recycle(problems[0]!.kind);
  }
  const text = [
    `[${door.name}] ${problems
      .map((problem) => problem.kind)
      .filter((kind, index, all) => all.indexOf(kind) === index)
      .join(', ')}`,
    ...problems.map((problem) => `  ${problem.kind}: ${redactTokens(problem.detail, info)}`),
    `  request: ${redactTokens(door.describe(input, info), info)}`,
    `  reply: ${redactTokens(outcome.summary, info)}`,
    `  system: ${info.topology} on ${info.database}, process generation ${system.generation}`,
    ...(logs ? ['  server log during the case:', logs] : []),
  ].join('\n');
  throw Object.assign(new FuzzFailure(text), { problems });
}

/**
 * Checks `door` against every value of `arbitrary`: fast-check's seeded run (FUZZ_SEED, FUZZ_RUNS), shrinking a failure
 * to the smallest request that still fails, within the shrink budget (FUZZ_SHRINK_MS). Its failure names the seed and
 * path to replay.
 */
export async function checkDoor<Input>(
  name: string,
  door: FuzzDoor<Input>,
  system: FuzzSystem,
  arbitrary: fc.Arbitrary<Input>,
  tally: FuzzTally,
): Promise<void> {
  const settings = fuzzSettings();
  const cache: DigestCache = { generation: 0, tables: undefined };
  let firstFailureAt: number | undefined;
  const property = fc.asyncProperty(arbitrary, async (input) => {
    // Past the shrink budget every further shrink candidate "passes" untried, so fast-check reports the smallest
    // failing request found so far instead of shrinking on for minutes.
    if (firstFailureAt !== undefined && Date.now() - firstFailureAt > settings.shrinkBudgetMs) return;
    tally.count(name);
    const generation = system.generation;
    try {
      await runFuzzCase(door, system, input, cache, (label) => tally.observe(name, label));
    } catch (error) {
      firstFailureAt ??= Date.now();
      const problems = (error as { problems?: Problem[] }).problems;
      if (problems) tally.fail(problems);
      if (system.generation !== generation) tally.restarts.push(name);
      throw error;
    }
  });
  await fc.assert(property, propertyParameters<[Input]>(tally.properties));
}
