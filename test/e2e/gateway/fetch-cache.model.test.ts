import * as grpc from '@grpc/grpc-js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUserExamplePackageDefinition, USER_EXAMPLE_SERVICE_NAME } from '../../../subgraphs/users/grpc/user-example.proto-package.ts';
import { createSocialGraphBuilder } from '../../../subgraphs/shared/social-graph/social-graph-builder.ts';
import type { SocialTables } from '../../../subgraphs/shared/social-graph/social-tables.ts';
import { CREATE } from '../../support/graphql-client.ts';
import { png } from '../../support/image-fixtures.ts';
import { bearerAuthorization, mediaFormData, mediaUploadUrl, sendMediaRequest, type MediaPart } from '../../support/media-client.ts';
import { createSocialFixture, OWN_PERMISSIONS, type SocialFixture } from '../../support/social-fixture.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { uniqueEmail } from '../../support/user-example-fixtures.ts';
import { redisAnswers, TEST_REDIS_URL } from '../../support/redis.ts';

/**
 * The fetch cache against a model (issue 39's "Done when"): random interleavings of writes — Area A's records through
 * GraphQL, REST and gRPC, comments (B) through GraphQL and the Graph REST paths, content publishing (C: a container made
 * from an image URL or an upload, then published) through GraphQL and the Graph REST paths, media uploads (D: simple and
 * chunked) and their alt text through GraphQL and the 1.1 REST paths — and reads — records through GraphQL and REST, a
 * media object's comments (an entity fetch the cache keeps) through GraphQL and a `fields=` read, an account's media edge
 * and media_count (a root read the cache keeps) through GraphQL and the Graph REST edge, an upload as the services read
 * it (its alt text on a container made from it, REST and GraphQL; a chunked upload's STATUS) — on two gateway instances
 * sharing one database, the cache on in both. Each run publishes and uploads as an account of its own (made for the run:
 * its media edge starts empty, and the publishing quota and upload rate limit are its own).
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
const CREATE_CONTAINER =
  'mutation Container($account: ID!, $input: MediaContainerInput!) { createMediaContainer(accountId: $account, input: $input) { id altText } }';
const PUBLISH =
  'mutation Publish($account: ID!, $container: ID) { publishMediaContainer(accountId: $account, creationId: $container) { id } }';
const ACCOUNT_MEDIA = 'query AccountMedia($id: ID!) { account(id: $id) { id mediaCount media(first: 100) { nodes { id caption } } } }';
const UPLOAD = 'mutation Upload($data: String) { uploadMedia(mediaData: $data) { mediaIdString } }';
const INIT = 'mutation Init($bytes: String!) { initMediaUpload(totalBytes: $bytes, mediaType: "image/png") { mediaIdString } }';
const APPEND =
  'mutation Append($id: String!, $data: String) { appendMediaUpload(mediaId: $id, segmentIndex: "0", mediaData: $data) { size } }';
const FINALIZE = 'mutation Finalize($id: String!) { finalizeMediaUpload(mediaId: $id) { mediaIdString } }';
const STATUS = 'query Status($id: String!) { mediaUploadStatus(mediaId: $id) { mediaIdString size } }';
const ALT_TEXT = 'mutation AltText($id: String!, $text: String) { createMediaMetadata(mediaId: $id, altText: $text) { altText } }';
/** The image every upload sends (one segment of a chunked upload). */
const IMAGE = png(16, 16);
const RUNS = Number(process.env.FETCH_CACHE_MODEL_RUNS ?? 12);

type Instance = 0 | 1;
interface Write {
  value: string;
  position: bigint;
  instance: Instance;
}
interface Upload {
  mediaId: string;
  /** Uploaded with INIT, APPEND, FINALIZE (it has a STATUS). */
  chunked: boolean;
  /** Its alt text in write order: the first is the upload itself (no alt text, ''). */
  altTexts: Write[];
}
interface Model {
  /** Each record's values in write order (the first is its creation). */
  records: Write[][];
  /** Comments written during the run, in order. */
  comments: Write[];
  /** The post's comments before the run. */
  initialComments: readonly string[];
  /** The captions of the run's account's publications, in order (its media edge starts empty). */
  published: Write[];
  /** The run's account's uploads, in order. */
  uploads: Upload[];
}
interface Real {
  recordIds: string[];
  post: string;
  /** The run's own professional account, and its own-login token. */
  account: string;
  token: string;
}

let systems: [TestSystem, TestSystem];
let fixture: SocialFixture;
let grpcClients: [grpc.Client, grpc.Client];
let counter = 0;
const unique = (prefix: string) => `${prefix} ${++counter}`;

/** A GraphQL operation on an instance's gateway, presenting `position` when given; its reply's errors are not checked. */
async function gql(instance: Instance, query: string, variables: Record<string, unknown>, token: string, position?: bigint) {
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
  return { body, position: response.headers.get('tributary-log-position') };
}

/** A GraphQL operation that must answer without errors. */
async function post(instance: Instance, query: string, variables: Record<string, unknown>, token: string, position?: bigint) {
  const reply = await gql(instance, query, variables, token, position);
  expect(reply.body.errors, JSON.stringify(reply.body.errors)).toBeUndefined();
  return reply;
}

/** A Graph REST call on an instance's own-login host (a JSON body for POST), presenting `position` when given. */
async function graph(instance: Instance, method: 'GET' | 'POST', path: string, token: string, body?: object, position?: bigint) {
  const response = await fetch(`${systems[instance].restUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
      ...(position !== undefined && { 'tributary-log-position': String(position) }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as any, position: response.headers.get('tributary-log-position') };
}

/** The change-log position an instance's cache has applied, from its metrics. */
async function appliedPosition(instance: Instance): Promise<bigint> {
  const text = await (await fetch(systems[instance].gatewayUrl.replace(/\/graphql$/, '/metrics'))).text();
  const match = /^tributary_gateway_cache_log_position(?:\{[^}]*\})? (\d+)$/m.exec(text);
  if (!match) throw new Error('no tributary_gateway_cache_log_position in the metrics');
  return BigInt(match[1]!);
}

/** Whether a read on `instance` must reflect `write`: it presented a position at or after it, took it, or applied it. */
function mustSee(write: Write, instance: Instance, presented: bigint | undefined, applied: bigint): boolean {
  return write.instance === instance || (presented !== undefined && write.position <= presented) || write.position <= applied;
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
    if (mustSee(write, instance, presented, applied)) least = index;
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
      if (mustSee(comment, this.instance, presented, applied)) {
        expect(texts.has(comment.value), `"${comment.value}" (position ${comment.position}) must be seen`).toBe(true);
      }
    });
  }
  toString = () => `read comments on instance ${this.instance} via ${this.door}${this.present ? ' with the position' : ''}`;
}

/** Area C: a container made (from an image URL, or from one of the run's uploads) and published, on one instance, one door. */
class Publish implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly instance: Instance,
    readonly door: 'graphql' | 'rest',
    /** Which of the run's uploads the container is made from (modulo their number); an image URL when undefined. */
    readonly upload: number | undefined,
  ) {}
  check = (model: Readonly<Model>) => this.upload === undefined || model.uploads.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const caption = unique(`model post via ${this.door}`);
    const upload = this.upload === undefined ? undefined : model.uploads[this.upload % model.uploads.length]!.mediaId;
    let position: bigint;
    if (this.door === 'graphql') {
      const input = { caption, ...(upload === undefined ? { imageUrl: 'https://cdn.example.com/model.jpg' } : { uploadMediaId: upload }) };
      const container = await post(this.instance, CREATE_CONTAINER, { account: real.account, input }, real.token);
      positionOf(container.position, 'a GraphQL container');
      const container_ = container.body.data.createMediaContainer.id as string;
      const published = await post(this.instance, PUBLISH, { account: real.account, container: container_ }, real.token);
      position = positionOf(published.position, 'a GraphQL publication');
    } else {
      const params = {
        caption,
        ...(upload === undefined ? { image_url: 'https://cdn.example.com/model.jpg' } : { upload_media_id: upload }),
      };
      const container = await graph(this.instance, 'POST', `/v25.0/${real.account}/media`, real.token, params);
      expect(container.status, JSON.stringify(container.body)).toBe(200);
      positionOf(container.position, 'a Graph REST container');
      const published = await graph(this.instance, 'POST', `/v25.0/${real.account}/media_publish`, real.token, {
        creation_id: container.body.id,
      });
      expect(published.status, JSON.stringify(published.body)).toBe(200);
      position = positionOf(published.position, 'a Graph REST publication');
    }
    model.published.push({ value: caption, position, instance: this.instance });
  }
  toString = () => `publish on instance ${this.instance} via ${this.door}${this.upload === undefined ? '' : ` from upload ${this.upload}`}`;
}

/** Area C: the run's account's media edge and media_count (a root read the cache keeps). */
class ReadAccountMedia implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly instance: Instance,
    readonly present: boolean,
    readonly door: 'graphql' | 'rest',
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const presented = this.present ? model.published.at(-1)?.position : undefined;
    const applied = await appliedPosition(this.instance);
    let captions: string[];
    let count: number;
    if (this.door === 'graphql') {
      const { account } = (await post(this.instance, ACCOUNT_MEDIA, { id: real.account }, real.token, presented)).body.data;
      captions = account.media.nodes.map((node: { caption: string }) => node.caption);
      count = account.mediaCount;
    } else {
      const path = `/v25.0/${real.account}?fields=media_count,media.limit(100){caption}`;
      const reply = await graph(this.instance, 'GET', path, real.token, undefined, presented);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      captions = (reply.body.media.data as { caption: string }[]).map((node) => node.caption);
      count = reply.body.media_count;
    }
    const read = new Set(captions);
    const written = new Set(model.published.map((write) => write.value));
    for (const caption of read) expect(written.has(caption), `read a publication no write made: "${caption}"`).toBe(true);
    model.published.forEach((write) => {
      if (mustSee(write, this.instance, presented, applied)) {
        expect(read.has(write.value), `"${write.value}" (position ${write.position}) must be seen`).toBe(true);
      }
    });
    expect(count, 'media_count is the edge read with it').toBe(captions.length);
  }
  toString = () => `read the account's media on instance ${this.instance} via ${this.door}${this.present ? ' with the position' : ''}`;
}

/** Area D: an image uploaded whole or in a chunked upload (INIT, APPEND, FINALIZE), each write answering its position. */
class UploadMedia implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly instance: Instance,
    readonly door: 'graphql' | 'rest',
    readonly chunked: boolean,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const { mediaId, position } = this.door === 'rest' ? await this.overRest(real) : await this.overGraphQL(real);
    model.uploads.push({ mediaId, chunked: this.chunked, altTexts: [{ value: '', position, instance: this.instance }] });
  }
  private async overRest(real: Real): Promise<{ mediaId: string; position: bigint }> {
    const send = (parts: MediaPart[]) =>
      sendMediaRequest(mediaUploadUrl(systems[this.instance].restUrl), {
        authorization: bearerAuthorization(real.token),
        body: mediaFormData(parts),
      });
    const text = (params: Record<string, string>) => Object.entries(params).map(([name, value]) => ({ name, value }));
    if (!this.chunked) {
      const reply = await send([{ name: 'media', bytes: IMAGE, filename: 'model.png' }]);
      expect(reply.status, reply.text).toBe(200);
      return { mediaId: reply.body.media_id_string, position: positionOf(reply.headers.get('tributary-log-position'), 'a REST upload') };
    }
    const init = await send(text({ command: 'INIT', total_bytes: String(IMAGE.length), media_type: 'image/png' }));
    expect(init.status, init.text).toBe(202);
    positionOf(init.headers.get('tributary-log-position'), 'a REST INIT');
    const mediaId = init.body.media_id_string as string;
    const append = await send([
      ...text({ command: 'APPEND', media_id: mediaId, segment_index: '0' }),
      { name: 'media', bytes: IMAGE, filename: 'blob', contentType: 'application/octet-stream' },
    ]);
    expect(append.status, append.text).toBe(204);
    positionOf(append.headers.get('tributary-log-position'), 'a REST APPEND');
    const finalize = await send(text({ command: 'FINALIZE', media_id: mediaId }));
    expect(finalize.status, finalize.text).toBe(200);
    return { mediaId, position: positionOf(finalize.headers.get('tributary-log-position'), 'a REST FINALIZE') };
  }
  private async overGraphQL(real: Real): Promise<{ mediaId: string; position: bigint }> {
    const data = IMAGE.toString('base64');
    if (!this.chunked) {
      const reply = await post(this.instance, UPLOAD, { data }, real.token);
      return { mediaId: reply.body.data.uploadMedia.mediaIdString, position: positionOf(reply.position, 'a GraphQL upload') };
    }
    const init = await post(this.instance, INIT, { bytes: String(IMAGE.length) }, real.token);
    positionOf(init.position, 'a GraphQL INIT');
    const mediaId = init.body.data.initMediaUpload.mediaIdString as string;
    positionOf((await post(this.instance, APPEND, { id: mediaId, data }, real.token)).position, 'a GraphQL APPEND');
    const finalize = await post(this.instance, FINALIZE, { id: mediaId }, real.token);
    return { mediaId, position: positionOf(finalize.position, 'a GraphQL FINALIZE') };
  }
  toString = () => `upload${this.chunked ? ' in chunks' : ''} on instance ${this.instance} via ${this.door}`;
}

/** Area D: alt text set on one of the run's uploads (POST /1.1/media/metadata/create.json, createMediaMetadata). */
class SetAltText implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly instance: Instance,
    readonly door: 'graphql' | 'rest',
    readonly upload: number,
  ) {}
  check = (model: Readonly<Model>) => model.uploads.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const upload = model.uploads[this.upload % model.uploads.length]!;
    const value = unique(`alt text via ${this.door}`);
    let position: bigint;
    if (this.door === 'graphql') {
      position = positionOf(
        (await post(this.instance, ALT_TEXT, { id: upload.mediaId, text: value }, real.token)).position,
        'a GraphQL alt text',
      );
    } else {
      const reply = await sendMediaRequest(new URL('/1.1/media/metadata/create.json', systems[this.instance].restUrl).toString(), {
        authorization: bearerAuthorization(real.token),
        body: JSON.stringify({ media_id: upload.mediaId, alt_text: { text: value } }),
        contentType: 'application/json',
      });
      expect(reply.status, reply.text).toBe(200);
      position = positionOf(reply.headers.get('tributary-log-position'), 'a REST alt text');
    }
    upload.altTexts.push({ value, position, instance: this.instance });
  }
  toString = () => `set alt text of upload ${this.upload} on instance ${this.instance} via ${this.door}`;
}

/**
 * Area D: one of the run's uploads as the services read it — its alt text on a container made from it (where the alt
 * text shows: test/support/media-containers.ts), and a chunked upload's STATUS. The upload itself must be there when its
 * write must be seen; its alt text must be the newest one the three rules require, or a newer one.
 */
class ReadUpload implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly instance: Instance,
    readonly door: 'graphql' | 'rest',
    readonly present: boolean,
    readonly upload: number,
  ) {}
  check = (model: Readonly<Model>) => model.uploads.length > 0;
  async run(model: Model, real: Real): Promise<void> {
    const upload = model.uploads[this.upload % model.uploads.length]!;
    const writes = upload.altTexts;
    const presented = this.present ? writes.at(-1)!.position : undefined;
    const applied = await appliedPosition(this.instance);
    const altText = await this.altText(upload.mediaId, real, presented);
    if (altText === undefined) {
      expect(mustSee(writes[0]!, this.instance, presented, applied), `upload ${upload.mediaId} must be seen`).toBe(false);
      return;
    }
    const index = writes.findIndex((write) => write.value === (altText ?? ''));
    expect(index, `read alt text "${altText}", which no write wrote`).toBeGreaterThanOrEqual(0);
    const least = required(writes, this.instance, presented, applied);
    expect(
      index,
      `read "${altText}" but "${writes[least]!.value}" (position ${writes[least]!.position}) must be seen`,
    ).toBeGreaterThanOrEqual(least);
    if (upload.chunked) expect(await this.statusSize(upload.mediaId, real, presented)).toBe(IMAGE.length);
  }
  /** The alt text of a container made from the upload (null: none), or undefined when the container was refused. */
  private async altText(mediaId: string, real: Real, presented: bigint | undefined): Promise<string | null | undefined> {
    if (this.door === 'graphql') {
      const input = { uploadMediaId: mediaId, caption: 'Reads its alt text' };
      const reply = await gql(this.instance, CREATE_CONTAINER, { account: real.account, input }, real.token, presented);
      return reply.body.errors ? undefined : (reply.body.data.createMediaContainer.altText as string | null);
    }
    const params = { upload_media_id: mediaId, caption: 'Reads its alt text' };
    const created = await graph(this.instance, 'POST', `/v25.0/${real.account}/media`, real.token, params, presented);
    if (created.status !== 200) return undefined;
    const read = await graph(this.instance, 'GET', `/v25.0/${created.body.id}?fields=id,alt_text`, real.token, undefined, presented);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    return (read.body.alt_text as string | undefined) ?? null;
  }
  /** A chunked upload's size as its STATUS gives it. */
  private async statusSize(mediaId: string, real: Real, presented: bigint | undefined): Promise<number> {
    if (this.door === 'graphql') {
      return (await post(this.instance, STATUS, { id: mediaId }, real.token, presented)).body.data.mediaUploadStatus.size;
    }
    const response = await fetch(mediaUploadUrl(systems[this.instance].restUrl, { command: 'STATUS', media_id: mediaId }), {
      headers: {
        authorization: bearerAuthorization(real.token),
        ...(presented !== undefined && { 'tributary-log-position': String(presented) }),
      },
    });
    const body = (await response.json()) as { size: number };
    expect(response.status, JSON.stringify(body)).toBe(200);
    return body.size;
  }
  toString = () => `read upload ${this.upload} on instance ${this.instance} via ${this.door}${this.present ? ' with the position' : ''}`;
}

const instance = fc.constantFrom<Instance>(0, 1);
const door = fc.constantFrom('graphql', 'rest' as const);
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
  fc.tuple(instance, door, fc.option(fc.nat(7), { nil: undefined, freq: 2 })).map(([i, d, u]) => new Publish(i, d, u)),
  fc.tuple(instance, fc.boolean(), door).map(([i, p, d]) => new ReadAccountMedia(i, p, d)),
  instance.map((i) => new ReadAccountMedia(i, false, 'graphql')),
  fc.tuple(instance, door, fc.boolean()).map(([i, d, c]) => new UploadMedia(i, d, c)),
  fc.tuple(instance, door, fc.nat(7)).map(([i, d, u]) => new SetAltText(i, d, u)),
  fc.tuple(instance, door, fc.boolean(), fc.nat(7)).map(([i, d, p, u]) => new ReadUpload(i, d, p, u)),
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
        const account = await createSocialGraphBuilder(systems[0].database.db.withTables<SocialTables>()).account({
          username: unique('model').replace(' ', '_'),
        });
        const token = await fixture.token('own', account, OWN_PERMISSIONS);
        await fc.asyncModelRun(
          () => ({
            model: { records, comments: [], initialComments, published: [], uploads: [] },
            real: { recordIds, post: thread.post, account, token },
          }),
          run,
        );
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

    // The same of an account's media edge (Area C's reads): a publication on instance 0, then the edge read twice on
    // instance 1 (presenting the publication's position, so that the first read's reply is kept): the second is a hit.
    const account = await createSocialGraphBuilder(systems[0].database.db.withTables<SocialTables>()).account({
      username: unique('model last').replaceAll(' ', '_'),
    });
    const token = await fixture.token('own', account, OWN_PERMISSIONS);
    const made = await post(
      0,
      CREATE_CONTAINER,
      { account, input: { imageUrl: 'https://cdn.example.com/last.jpg', caption: 'Last post' } },
      token,
    );
    const published = await post(0, PUBLISH, { account, container: made.body.data.createMediaContainer.id }, token);
    const position = positionOf(published.position, 'a GraphQL publication');
    const mediaHits = await counter(1, 'tributary_gateway_cache_lookups_total', 'hit');
    for (let read = 0; read < 2; read += 1) {
      const { data } = (await post(1, ACCOUNT_MEDIA, { id: account }, token, position)).body;
      expect(data.account.media.nodes.map((node: { caption: string }) => node.caption)).toEqual(['Last post']);
    }
    expect(await counter(1, 'tributary_gateway_cache_lookups_total', 'hit')).toBe(mediaHits + 1);
  });
});
