import { isDeepStrictEqual } from 'node:util';
import type { MethodDefinition } from '@grpc/proto-loader';
import { describe, expect, it } from 'vitest';
import {
  loadDescriptorSet,
  loadUserExamplePackageDefinition,
  packageDefinitionFromDescriptorSet,
  USER_EXAMPLE_SERVICE_NAME,
} from '../../subgraphs/users/grpc/user-example.proto-package.ts';

/**
 * The gRPC server's codecs come from the committed descriptor set (one source with reflection); clients build theirs from
 * proto/. The two must be the same codec: every message of every method encodes to the same bytes and decodes to the same
 * objects — 64-bit extremes, enum numbers the proto does not define, proto3 `optional` present with zero values and
 * absent, unknown fields, empty messages. A descriptor set left stale after a proto change fails here too.
 */

type Methods = Record<string, MethodDefinition<object, object>>;

const fromProto = loadUserExamplePackageDefinition()[USER_EXAMPLE_SERVICE_NAME] as unknown as Methods;
const fromSet = packageDefinitionFromDescriptorSet(loadDescriptorSet())[USER_EXAMPLE_SERVICE_NAME] as unknown as Methods;

const record = {
  id: '18446744073709551615',
  name: 'n',
  email: 'e@example.com',
  phone: '13800138000',
  avatar: 'https://example.com/a.png',
  age: -1,
  gender: 9,
  status: 2147483647,
  login_at: '-9223372036854775808',
  created_at: '2026-11-21T10:15:30.123Z',
  updated_at: '',
};

/** Requests and replies of each method, as objects. */
const SAMPLES: Record<string, { requests: object[]; replies: object[] }> = {
  Create: {
    requests: [
      {},
      { name: 'Ada', email: 'ada@example.com', password: 'p'.repeat(10), phone: '1', avatar: 'a', age: 120, gender: 'FEMALE' },
      { gender: 7, age: -2147483648 },
    ],
    replies: [{ id: '18446744073709551615' }, { id: '0' }, {}],
  },
  DeleteByID: { requests: [{ id: '5' }, {}, { id: '18446744073709551615' }], replies: [{}] },
  UpdateByID: {
    requests: [
      { id: '2' },
      { id: '2', name: '', email: '', password: '', phone: '', avatar: '', age: 0, gender: 'UNKNOWN', status: 0, login_at: '0' },
      { id: '3', gender: 5, login_at: '9223372036854775807', status: -1 },
    ],
    replies: [{}],
  },
  GetByID: { requests: [{ id: '1' }, {}], replies: [{}, { userExample: record }, { userExample: { id: '1' } }] },
  List: {
    requests: [
      {},
      { params: {} },
      { params: { page: 3, limit: 1000, sort: '-age,name', columns: [{ name: 'age', exp: 'gte', value: '18', logic: 'or:(' }, {}] } },
    ],
    replies: [{}, { total: '9223372036854775807', userExamples: [record, {}] }],
  },
};

/** Raw messages: empty, unknown fields of each wire type, a field of the wrong wire type, a truncated one. */
const RAW = [
  [],
  [0x08, 0x01],
  [0xf8, 0x07, 0x01],
  [0x50, 0x01, 0x08, 0x07],
  [0x0a, 0x00],
  [0x0a, 0x02, 0x08, 0x01],
  [0x12, 0x03, 0x61, 0x62, 0x63],
  [0x0d, 0x01, 0x02, 0x03, 0x04],
  [0x0a, 0x05, 0x61],
].map((bytes) => Buffer.from(bytes));

/** A decode's result, or the error message when it throws, so both sides are compared either way. */
function decode(method: MethodDefinition<object, object>, side: 'request' | 'response', bytes: Buffer): unknown {
  try {
    return side === 'request' ? method.requestDeserialize(bytes) : method.responseDeserialize(bytes);
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
}

describe('the gRPC codecs from the descriptor set and from proto/', () => {
  it('define the same methods', () => {
    const shape = (methods: Methods) =>
      Object.fromEntries(Object.entries(methods).map(([name, m]) => [name, [m.path, m.requestStream, m.responseStream, m.originalName]]));
    expect(shape(fromSet)).toEqual(shape(fromProto));
    expect(Object.keys(fromSet)).toEqual(['Create', 'DeleteByID', 'UpdateByID', 'GetByID', 'List']);
  });

  for (const [name, { requests, replies }] of Object.entries(SAMPLES)) {
    it(`${name}: encode every sample to the same bytes and decode them, and raw bytes, to the same objects`, () => {
      const a = fromProto[name]!;
      const b = fromSet[name]!;
      for (const request of requests) {
        const bytes = a.requestSerialize(request);
        expect(b.requestSerialize(request).equals(bytes), JSON.stringify(request)).toBe(true);
        expect(isDeepStrictEqual(decode(b, 'request', bytes), decode(a, 'request', bytes)), JSON.stringify(request)).toBe(true);
      }
      for (const reply of replies) {
        const bytes = a.responseSerialize(reply);
        expect(b.responseSerialize(reply).equals(bytes), JSON.stringify(reply)).toBe(true);
        expect(isDeepStrictEqual(decode(b, 'response', bytes), decode(a, 'response', bytes)), JSON.stringify(reply)).toBe(true);
      }
      for (const bytes of RAW) {
        expect(isDeepStrictEqual(decode(b, 'request', bytes), decode(a, 'request', bytes)), bytes.toString('hex')).toBe(true);
        expect(isDeepStrictEqual(decode(b, 'response', bytes), decode(a, 'response', bytes)), bytes.toString('hex')).toBe(true);
      }
    });
  }

  it('decode a present-but-zero proto3 optional field as present, and an absent one as absent', () => {
    const update = fromSet.UpdateByID!;
    const decoded = update.requestDeserialize(update.requestSerialize({ id: '2', age: 0 })) as Record<string, unknown>;
    expect(decoded).toEqual({ id: '2', age: 0, _age: 'age' });
  });
});
