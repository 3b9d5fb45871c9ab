import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUserExamplePackageDefinition, USER_EXAMPLE_SERVICE_NAME } from '../../../subgraphs/users/grpc/user-example.proto-package.ts';
import { CREATE } from '../../support/graphql-client.ts';
import { createSocialFixture, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';
import { redisAnswers, TEST_REDIS_URL } from '../../support/redis.ts';

/**
 * The fetch cache against a model (issue 39's "Done when"): random interleavings of writes — Area A's records through
 * GraphQL, REST and gRPC, comments through GraphQL and the Graph REST paths — and reads — records through GraphQL and
 * REST, a media object's comments (an entity fetch the cache keeps) through GraphQL and a `fields=` read — on two
 * gateway instances sharing one database, the cache on in both.
 * Each read must reflect every write that
 * - it presented the position of (`Tributary-Log-Position`, from the write's reply);
 * - the instance it was sent to took (that instance's write reply waited for its changes to reach its cache);
 * - lies at or before the instance's change-log position as its metrics gave it just before the read (the bound on
 *   how stale the other instance may be: never older than the log it has applied, whatever the timing).
 * and nothing a write did not write. Writes are sequential, so a record's values are totally ordered: a read may give an
 * older value than the newest only when none of the three rules requires a newer one.
 *
 * Runs on PGlite and (e2e-postgres) on PostgreSQL, with the in-memory level alone and with Redis as the shared second
 * level.
 */

const NOW = () => new Date('2026-11-02T00:00:00.000Z');
const USER = 'query User($id: UInt64!) { userExample(id: $id) { id name } }';
const UPDATE = 'mutation Update($id: UInt64!, $input: UpdateUserExampleInput!) { updateUserExample(id: $id, input: $input) { id } }';
const COMMENTS = 'query Comments($id: ID!) { media(id: $id) { id comments(first: 100) { nodes { id text } } } }';
const COMMENT = 'mutation Comment($media: ID!, $text: String) { createMediaComment(mediaId: $media, message: $text) { id } }';
const RUNS = Number(process.env.FETCH_CACHE_MODEL_RUNS ?? 12);

type Instance = 0 | 1;
interface Write {
  value: string;
  position: bigint;
  instance: Instance;
}
interface Model {
  /** Each record's values in write order (the first is its creation). */
  records: Write[][];
  /** Comments written during the run, in order. */
  comments: Write[];
  /** The post's comments before the run. */
  initialComments: readonly string[];
}
interface Real {
  recordIds: string[];
  post: string;
}

let systems: [TestSystem, TestSystem];
let fixture: SocialFixture;
let grpcClients: [grpc.Client, grpc.Client];
let counter = 0;
const unique = (prefix: string) => `${prefix} ${++counter}`;

async function post(instance: Instance, query: string, variables: Record<string, unknown>, token: string, position?: bigint) {
  const response = await fetch(systems[instance].gatewayUrl, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      ...(position !== undefined && { 'tributary-log-position': String(position) }),
    },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await response.json()) as { data?: any; errors?: unknown[] };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return { body, position: response.headers.get('tributary-log-position') };
}

/** The change-log position an instance's cache has applied, from its metrics. */
async function appliedPosition(instance: Instance): Promise<bigint> {
  const text = await (await fetch(systems[instance].gatewayUrl.replace(/\/graphql$/, '/metrics'))).text();
  const match = /^tributary_gateway_cache_log_position(?:\{[^}]*\})? (\d+)$/m.exec(text);
  if (!match) throw new Error('no tributary_gateway_cache_log_position in the metrics');
  return BigInt(match[1]!);
}

function positionOf(text: string | null, what: string): bigint {
  if (text === null || !/^[1-9][0-9]*$/.test(text)) throw new Error(`${what} gave no log position (${String(text)})`);
  return BigInt(text);
}

/** UpdateByID over gRPC on an instance's own gRPC door, with the trailer's position. */
function grpcUpdate(instance: Instance, id: string, name: string): Promise<bigint> {
  return new Promise((resolve, reject) => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${systems[instance].adminToken()}`);
    let trailer: string | undefined;
    const client = grpcClients[instance] as unknown as Record<string, (...args: unknown[]) => grpc.ClientUnaryCall>;
    const call = client.UpdateByID!({ id, name }, metadata, (error: grpc.ServiceError | null) => {
      if (error) reject(error);
    });
    call.on('status', (status: grpc.StatusObject) => {
      trailer = status.metadata.get('tributary-log-position')[0]?.toString();
      if (status.code === grpc.status.OK) resolve(positionOf(trailer ?? null, 'a gRPC UpdateByID'));
    });
  });
}

/** The least index of `writes` a read on `instance` must reflect, given what it presented and what the instance applied. */
function required(writes: readonly Write[], instance: Instance, presented: bigint | undefined, applied: bigint): number {
  let least = 0;
  writes.forEach((write, index) => {
    if (write.instance === instance || (presented !== undefined && write.position <= presented) || write.position <= applied) {
      least = index;
    }
  });
  return least;
}

class UpdateRecord implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly instance: Instance,
    readonly record: number,
    readonly door: 'graphql' | 'rest' | 'grpc',
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const id = real.recordIds[this.record]!;
    const value = unique(`name via ${this.door}`);
    const system = systems[this.instance];
    let position: bigint;
    if (this.door === 'graphql') {
      const reply = await post(this.instance, UPDATE, { id, input: { name: value } }, system.adminToken());
      position = positionOf(reply.position, 'a GraphQL update');
    } else if (this.door === 'rest') {
      const response = await fetch(`${system.restUrl}/api/v1/userExample/${id}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${system.adminToken()}` },
        body: JSON.stringify({ name: value }),
      });
      expect(response.status).toBe(200);
      position = positionOf(response.headers.get('tributary-log-position'), 'a REST PUT');
    } else {
      position = await grpcUpdate(this.instance, id, value);
    }
    model.records[this.record]!.push({ value, position, instance: this.instance });
  }
  toString = () => `update record ${this.record} on instance ${this.instance} via ${this.door}`;
}

class ReadRecord implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly instance: Instance,
    readonly record: number,
    readonly door: 'graphql' | 'rest',
    readonly present: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const writes = model.records[this.record]!;
    const presented = this.present ? writes.at(-1)!.position : undefined;
    const applied = await appliedPosition(this.instance);
    const id = real.recordIds[this.record]!;
    const system = systems[this.instance];
    let name: string;
    if (this.door === 'graphql') {
      name = (await post(this.instance, USER, { id }, system.adminToken(), presented)).body.data.userExample.name;
    } else {
      const response = await fetch(`${system.restUrl}/api/v1/userExample/${id}`, {
        headers: {
          authorization: `Bearer ${system.adminToken()}`,
          ...(presented !== undefined && { 'tributary-log-position': String(presented) }),
        },
      });
      expect(response.status).toBe(200);
      name = ((await response.json()) as { userExample: { name: string } }).userExample.name;
    }
    const index = writes.findIndex((write) => write.value === name);
    expect(index, `read "${name}", which no write wrote`).toBeGreaterThanOrEqual(0);
    const least = required(writes, this.instance, presented, applied);
    expect(index, `read "${name}" but "${writes[least]!.value}" (position ${writes[least]!.position}) must be seen`).toBeGreaterThanOrEqual(
      least,
    );
  }
  toString = () => `read record ${this.record} on instance ${this.instance} via ${this.door}${this.present ? ' with the position' : ''}`;
}

class WriteComment implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly instance: Instance,
    readonly door: 'graphql' | 'rest',
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const text = unique(`model comment via ${this.door}`);
    let position: bigint;
    if (this.door === 'graphql') {
      const reply = await post(this.instance, COMMENT, { media: real.post, text }, fixture.tokens.own);
      position = positionOf(reply.position, 'a GraphQL comment');
    } else {
      const url = `${systems[this.instance].restUrl}/v25.0/${real.post}/comments?message=${encodeURIComponent(text)}&access_token=${fixture.tokens.own}`;
      const reply = await fetch(url, { method: 'POST' });
      expect(reply.status).toBe(200);
      position = positionOf(reply.headers.get('tributary-log-position'), 'a Graph REST comment');
    }
    model.comments.push({ value: text, position, instance: this.instance });
  }
  toString = () => `comment on instance ${this.instance} via ${this.door}`;
}

class ReadComments implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly instance: Instance,
    readonly present: boolean,
    readonly door: 'graphql' | 'rest' = 'graphql',
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const presented = this.present ? model.comments.at(-1)?.position : undefined;
    const applied = await appliedPosition(this.instance);
    let nodes: { text: string }[];
    if (this.door === 'graphql') {
      nodes = (await post(this.instance, COMMENTS, { id: real.post }, fixture.tokens.own, presented)).body.data.media.comments.nodes;
    } else {
      const url = `${systems[this.instance].restUrl}/v25.0/${real.post}?fields=comments.limit(100){text}&access_token=${fixture.tokens.own}`;
      const reply = await fetch(url, { headers: presented === undefined ? {} : { 'tributary-log-position': String(presented) } });
      expect(reply.status).toBe(200);
      nodes = ((await reply.json()) as { comments: { data: { text: string }[] } }).comments.data;
    }
    const texts = new Set<string>(nodes.map((node) => node.text));
    const written = new Set([...model.initialComments, ...model.comments.map((comment) => comment.value)]);
    for (const text of texts) expect(written.has(text), `read a comment no write wrote: "${text}"`).toBe(true);
    model.comments.forEach((comment) => {
      const must =
        comment.instance === this.instance || (presented !== undefined && comment.position <= presented) || comment.position <= applied;
      if (must) expect(texts.has(comment.value), `"${comment.value}" (position ${comment.position}) must be seen`).toBe(true);
    });
  }
  toString = () => `read comments on instance ${this.instance} via ${this.door}${this.present ? ' with the position' : ''}`;
}

const instance = fc.constantFrom<Instance>(0, 1);
const RECORDS = 2;
const commands = [
  fc
    .tuple(instance, fc.nat(RECORDS - 1), fc.constantFrom('graphql', 'rest', 'grpc' as const))
    .map(([i, r, d]) => new UpdateRecord(i, r, d)),
  fc
    .tuple(instance, fc.nat(RECORDS - 1), fc.constantFrom('graphql', 'rest' as const), fc.boolean())
    .map(([i, r, d, p]) => new ReadRecord(i, r, d, p)),
  fc
    .tuple(instance, fc.nat(RECORDS - 1), fc.constant('graphql' as const), fc.constant(false))
    .map(([i, r, d, p]) => new ReadRecord(i, r, d, p)),
  fc.tuple(instance, fc.constantFrom('graphql', 'rest' as const)).map(([i, d]) => new WriteComment(i, d)),
  fc.tuple(instance, fc.boolean(), fc.constantFrom('graphql', 'rest' as const)).map(([i, p, d]) => new ReadComments(i, p, d)),
  instance.map((i) => new ReadComments(i, false)),
];

const LEVELS: { level: string; env: Record<string, string>; runs: boolean }[] = [
  { level: 'in memory', env: { GATEWAY_CACHE: 'memory' }, runs: true },
  // Both instances share Redis as the second level: an entry one kept is served by the other when it vouches for it.
  { level: 'in memory and Redis', env: { GATEWAY_CACHE: 'redis', REDIS_URL: TEST_REDIS_URL }, runs: await redisAnswers() },
];

describe.each(LEVELS)('the fetch cache against a model: two instances, one database, cached $level', ({ env, runs }) => {
  if (!runs) {
    it.skip('needs Redis at REDIS_URL (.ci/run starts it)', () => undefined);
    return;
  }
  beforeAll(async () => {
    const first = await startTestSystem(env, { now: NOW });
    const second = await startTestSystem(env, { now: NOW, database: first.database });
    systems = [first, second];
    fixture = await createSocialFixture(first.database, { now: NOW });
    const definition = loadUserExamplePackageDefinition();
    const Service = grpc.makeGenericClientConstructor(definition[USER_EXAMPLE_SERVICE_NAME] as grpc.ServiceDefinition, 'userExample');
    grpcClients = [
      new Service(first.grpcAddress, grpc.credentials.createInsecure()),
      new Service(second.grpcAddress, grpc.credentials.createInsecure()),
    ];
  });
  afterAll(async () => {
    for (const client of grpcClients ?? []) client.close();
    await systems?.[1]?.close();
    await systems?.[0]?.close();
  });

  it('every read reflects what its position, its instance and its instance’s applied log require', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 30 }), async (run) => {
        const records: Write[][] = [];
        const recordIds: string[] = [];
        for (let index = 0; index < RECORDS; index += 1) {
          const name = unique('model record');
          const input = {
            name,
            email: uniqueEmail('model'),
            password: '0123456789',
            phone: '13800138000',
            avatar: 'https://x.example/a.png',
            age: 30,
            gender: 'FEMALE',
          };
          const created = await post(0, CREATE, { input }, systems[0].adminToken());
          recordIds.push(created.body.data.createUserExample.id);
          records.push([{ value: name, position: positionOf(created.position, 'a create'), instance: 0 }]);
        }
        const thread = await fixture.newCommentThread();
        const initial = await post(0, COMMENTS, { id: thread.post }, fixture.tokens.own);
        const initialComments = initial.body.data.media.comments.nodes.map((node: { text: string }) => node.text);
        await fc.asyncModelRun(() => ({ model: { records, comments: [], initialComments }, real: { recordIds, post: thread.post } }), run);
      }),
      { numRuns: RUNS },
    );
    // The cache was on and serving (a random run may hold few repeated reads): a record read on instance 0, then twice
    // on instance 1 — a local hit there, and with Redis the first of the two taken from what instance 0 kept.
    const counter = async (instance: Instance, name: string, result: string) => {
      const metrics = await (await fetch(systems[instance].gatewayUrl.replace(/\/graphql$/, '/metrics'))).text();
      return Number(new RegExp(`^${name}\\{result="${result}"[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    };
    const input = {
      name: 'Last',
      email: uniqueEmail('model-last'),
      password: '0123456789',
      phone: '13800138000',
      avatar: 'https://x.example/a.png',
      age: 30,
      gender: 'FEMALE',
    };
    const id: string = (await post(0, CREATE, { input }, systems[0].adminToken())).body.data.createUserExample.id;
    await post(0, USER, { id }, systems[0].adminToken());
    const [hits, sharedHits] = [
      await counter(1, 'tributary_gateway_cache_lookups_total', 'hit'),
      await counter(1, 'tributary_gateway_cache_shared_lookups_total', 'hit'),
    ];
    expect((await post(1, USER, { id }, systems[1].adminToken())).body.data.userExample.name).toBe('Last');
    expect((await post(1, USER, { id }, systems[1].adminToken())).body.data.userExample.name).toBe('Last');
    expect(await counter(1, 'tributary_gateway_cache_lookups_total', 'hit')).toBe(hits + 1);
    if (env.GATEWAY_CACHE === 'redis') expect(await counter(1, 'tributary_gateway_cache_shared_lookups_total', 'hit')).toBe(sharedHits + 1);
  });
});
