import { connect, constants, type ClientHttp2Session } from 'node:http2';
import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUserExampleGrpcClient, type UserExampleGrpcClient } from '../../support/grpc-user-client.ts';
import { HANG_MS } from '../../support/hang-bounds.ts';
import { startTestSystem, type TestSystem } from '../../support/test-system.ts';
import { LIST_REQUEST, LIST_RULE, violationMessage } from '../../support/user-example-errors.ts';

/**
 * Regression tests of the gRPC door under hostile input (issue "Hostile traffic"): a List breaking thousands of rules
 * once produced an error too large to send, leaving the call unanswered and the HTTP/2 connection dead for every other
 * call on it; malformed calls — bytes that are no message, a `grpc-timeout` that is no timeout, compressed bytes that do
 * not decompress — were answered INTERNAL. Each is INVALID_ARGUMENT now (an encoding the server does not offer stays
 * UNIMPLEMENTED, as the gRPC compression spec asks), and the connection serves the next call.
 */

const GET_BY_ID = '/api.serverNameExample.v1.userExample/GetByID';

interface RawGrpcReply {
  httpStatus: number;
  grpcStatus: number | undefined;
  grpcMessage: string | undefined;
}

/** One unary call written by hand on `session`: `message` is sent as the frame's payload, whatever it holds. */
function rawCall(
  session: ClientHttp2Session,
  path: string,
  message: Buffer,
  options: { headers?: Record<string, string>; compressed?: boolean; token?: string } = {},
): Promise<RawGrpcReply> {
  return new Promise((resolve, reject) => {
    const stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: path,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    });
    const frame = Buffer.alloc(5 + message.length);
    frame.writeUInt8(options.compressed ? 1 : 0, 0);
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, 5);
    let httpStatus = 0;
    const reply: Record<string, string | undefined> = {};
    const take = (headers: Record<string, unknown>) => {
      for (const key of ['grpc-status', 'grpc-message']) if (typeof headers[key] === 'string') reply[key] = headers[key] as string;
    };
    stream.on('response', (headers) => {
      httpStatus = Number(headers[constants.HTTP2_HEADER_STATUS]);
      take(headers);
    });
    stream.on('trailers', take);
    stream.on('data', () => undefined);
    stream.on('error', reject);
    stream.on('close', () =>
      resolve({
        httpStatus,
        grpcStatus: reply['grpc-status'] === undefined ? undefined : Number(reply['grpc-status']),
        grpcMessage: reply['grpc-message'] === undefined ? undefined : decodeURIComponent(reply['grpc-message']),
      }),
    );
    // Only a hang reaches HANG_MS; the call is then cancelled and the test fails on the status it did not get.
    stream.setTimeout(HANG_MS, () => stream.close(constants.NGHTTP2_CANCEL));
    stream.end(frame);
  });
}

/** GetByIDRequest { id: 1 } in protobuf: field 1, varint 1. */
const GET_ONE = Buffer.from([0x08, 0x01]);

describe('gRPC under hostile input', () => {
  let system: TestSystem;
  let client: UserExampleGrpcClient;
  let session: ClientHttp2Session;
  let token: string;
  beforeAll(async () => {
    system = await startTestSystem();
    client = createUserExampleGrpcClient(system.grpcAddress);
    token = system.adminToken();
    await client.call('Create', {
      name: 'Grpc Hostile',
      email: 'grpc.hostile@example.com',
      password: 'correct-horse-battery',
      phone: '13800138000',
      avatar: 'https://example.com/a.png',
      age: 3,
      gender: 'MALE',
    });
    session = connect(`http://${system.grpcAddress}`);
  });
  afterAll(async () => {
    session?.close();
    client?.close();
    await system?.close();
  });

  /** The same session still answers a well-formed call. */
  async function sessionServes(): Promise<void> {
    const reply = await rawCall(session, GET_BY_ID, GET_ONE, { token });
    expect(reply).toEqual({ httpStatus: 200, grpcStatus: grpc.status.OK, grpcMessage: 'OK' });
  }

  it('answers a List of thousands of broken conditions at once, and the connection serves the next call', async () => {
    const columns = Array.from({ length: 5_000 }, (_, i) => ({
      name: `no_such_column_${i}`,
      exp: 'no-such-operator',
      value: 'x'.repeat(64),
      logic: 'xor',
    }));
    const metadata = { authorization: `Bearer ${token}` };
    const error = (await client.call('List', { params: { columns } }, metadata).catch((e: unknown) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details).toBe(violationMessage(LIST_REQUEST, [{ field: 'params.columns', description: LIST_RULE.columns }]));
    expect(await client.call('GetByID', { id: '1' }, metadata)).toMatchObject({ userExample: { email: 'grpc.hostile@example.com' } });
  });

  it('refuses a List of ~2.3 MB with RESOURCE_EXHAUSTED before decoding it, and the connection serves the next call', async () => {
    const columns = Array.from({ length: 20_000 }, (_, i) => ({
      name: `no_such_column_${i}`,
      exp: 'no-such-operator',
      value: 'x'.repeat(64),
      logic: 'xor',
    }));
    const metadata = { authorization: `Bearer ${token}` };
    const error = (await client.call('List', { params: { columns } }, metadata).catch((e: unknown) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(await client.call('GetByID', { id: '1' }, metadata)).toMatchObject({ userExample: { email: 'grpc.hostile@example.com' } });
  });

  it('keeps an error of many violations small enough to send (100 conditions, 300 violations)', async () => {
    const columns = Array.from({ length: 100 }, (_, i) => ({
      name: `no_such_column_${'c'.repeat(40)}${i}`,
      exp: 'bad',
      value: 'x',
      logic: 'xor',
    }));
    const metadata = { authorization: `Bearer ${token}` };
    const error = (await client.call('List', { params: { columns } }, metadata).catch((e: unknown) => e)) as grpc.ServiceError;
    expect(error.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(error.details.length).toBeLessThanOrEqual(512);
    const details = error.metadata.get('grpc-status-details-bin')[0] as Buffer;
    expect(details.length).toBeLessThan(3072);
    expect(await client.call('GetByID', { id: '1' }, metadata)).toMatchObject({ userExample: { id: '1' } });
  });

  it('answers bytes that are no request message with INVALID_ARGUMENT', async () => {
    // A field-1 string whose length runs past the end of the message.
    const reply = await rawCall(session, GET_BY_ID, Buffer.from([0x0a, 0xff, 0x01, 0x31]), { token });
    expect(reply.grpcStatus).toBe(grpc.status.INVALID_ARGUMENT);
    expect(reply.grpcMessage).toMatch(/^the request is not a valid GetUserExampleByIDRequest message: /);
    await sessionServes();
  });

  it.each(['forever', '1x', 'S'])('answers grpc-timeout %j with INVALID_ARGUMENT', async (timeout) => {
    const reply = await rawCall(session, GET_BY_ID, GET_ONE, { token, headers: { 'grpc-timeout': timeout } });
    expect(reply.grpcStatus).toBe(grpc.status.INVALID_ARGUMENT);
    expect(reply.grpcMessage).toBe(`Invalid grpc-timeout value "${timeout}"`);
    await sessionServes();
  });

  it('answers compressed bytes that do not decompress with INVALID_ARGUMENT', async () => {
    const reply = await rawCall(session, GET_BY_ID, Buffer.from('not gzip at all'), {
      token,
      compressed: true,
      headers: { 'grpc-encoding': 'gzip' },
    });
    expect(reply.grpcStatus).toBe(grpc.status.INVALID_ARGUMENT);
    expect(reply.grpcMessage).toBe('Failed to decompress message');
    await sessionServes();
  });

  it('answers a gzip message that decompresses to no request message with INVALID_ARGUMENT', async () => {
    const reply = await rawCall(session, GET_BY_ID, gzipSync(Buffer.from([0x0a, 0xff])), {
      token,
      compressed: true,
      headers: { 'grpc-encoding': 'gzip' },
    });
    expect(reply.grpcStatus).toBe(grpc.status.INVALID_ARGUMENT);
    await sessionServes();
  });

  it('answers an encoding the server does not offer with UNIMPLEMENTED (the gRPC compression spec)', async () => {
    const reply = await rawCall(session, GET_BY_ID, GET_ONE, { token, compressed: true, headers: { 'grpc-encoding': 'snappy' } });
    expect(reply.grpcStatus).toBe(grpc.status.UNIMPLEMENTED);
    await sessionServes();
  });

  it('refuses a request message over 1 MiB with RESOURCE_EXHAUSTED', async () => {
    const reply = await rawCall(session, GET_BY_ID, Buffer.alloc(1024 * 1024 + 1), { token });
    expect(reply.grpcStatus).toBe(grpc.status.RESOURCE_EXHAUSTED);
    await sessionServes();
  });
});
