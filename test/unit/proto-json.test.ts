import { describe, expect, it } from 'vitest';
import { isLosslessNumber } from 'lossless-json';
import type { FieldViolation } from '../../lib/errors.ts';
import { decodeMessage, parseJsonBody, type MessageSpec } from '../../rest-adapter/user-records/proto-json.ts';

/** Messages shaped like Area A's requests (the routes keep their own; these exercise every field type). */
const GENDER = { enum: { UNKNOWN: 0, MALE: 1, FEMALE: 2 } } as const;

const UPDATE: MessageSpec = {
  name: 'api.serverNameExample.v1.UpdateUserExampleByIDRequest',
  fields: {
    id: { type: 'uint64' },
    name: { type: 'string' },
    age: { type: 'int32' },
    gender: { type: GENDER },
    loginAt: { type: 'int64', protoName: 'login_at' },
  },
};

const COLUMN: MessageSpec = {
  name: 'api.types.Column',
  fields: { name: { type: 'string' }, exp: { type: 'string' }, value: { type: 'string' }, logic: { type: 'string' } },
};

const LIST: MessageSpec = {
  name: 'api.serverNameExample.v1.ListUserExampleRequest',
  fields: {
    params: {
      type: {
        message: {
          name: 'api.types.Params',
          fields: {
            page: { type: 'int32' },
            limit: { type: 'int32' },
            sort: { type: 'string' },
            columns: { type: { repeated: { message: COLUMN } } },
            ids: { type: { repeated: 'uint64' } },
          },
        },
      },
    },
  },
};

/** Parses `json` as a body and decodes it; returns what was decoded and every violation. */
function decode(spec: MessageSpec, json: string) {
  const violations: FieldViolation[] = [];
  const message = decodeMessage(spec, parseJsonBody(json), '', violations);
  return { message, violations };
}

describe('parseJsonBody', () => {
  it('keeps every digit of numbers beyond 2^53', () => {
    const body = parseJsonBody('{"id": 18446744073709551615, "small": 1}') as Record<string, unknown>;
    expect(isLosslessNumber(body.id)).toBe(true);
    expect(String(body.id)).toBe('18446744073709551615');
    expect(String(body.small)).toBe('1');
  });

  it('reads an empty or blank body as an empty object', () => {
    expect(parseJsonBody('')).toEqual({});
    expect(parseJsonBody(' \n')).toEqual({});
  });

  it('throws a SyntaxError with the position for malformed JSON', () => {
    expect(() => parseJsonBody('{"a":')).toThrow(new SyntaxError("Object value expected after ':' at position 5"));
    expect(() => parseJsonBody('{a:1}')).toThrow(new SyntaxError("Quoted object key expected but got 'a' at position 1"));
  });

  it('refuses a key given twice', () => {
    expect(() => parseJsonBody('{"a":1,"a":2}')).toThrow(new SyntaxError("Duplicate key 'a' encountered at position 8"));
  });
});

describe('decodeMessage', () => {
  it('decodes every field type: 64-bit integers as exact strings, int32 and enums as numbers', () => {
    expect(
      decode(UPDATE, '{"id": 18446744073709551615, "name": "Ann", "age": 30, "gender": "FEMALE", "loginAt": -9223372036854775808}'),
    ).toEqual({
      message: { id: '18446744073709551615', name: 'Ann', age: 30, gender: 2, loginAt: '-9223372036854775808' },
      violations: [],
    });
  });

  it('takes 64-bit integers and int32 as strings too, in canonical form', () => {
    expect(decode(UPDATE, '{"id": "9007199254740993", "age": "42", "loginAt": "007"}').message).toEqual({
      id: '9007199254740993',
      age: 42,
      loginAt: '7',
    });
  });

  it('takes integral values written with a fraction or exponent while they are exact', () => {
    expect(decode(UPDATE, '{"id": 1.0, "age": 1e2, "loginAt": "-2E3"}').message).toEqual({ id: '1', age: 100, loginAt: '-2000' });
    expect(decode(UPDATE, '{"id": 9007199254740993.0}').violations).toEqual([
      { field: 'id', description: 'expected an unsigned 64-bit integer, got 9007199254740993.0' },
    ]);
  });

  it('accepts proto names beside JSON names, and refuses the same field given both ways', () => {
    expect(decode(UPDATE, '{"login_at": "5"}').message).toEqual({ loginAt: '5' });
    expect(decode(UPDATE, '{"loginAt": "5", "login_at": "6"}')).toEqual({
      message: { loginAt: '5' },
      violations: [{ field: 'login_at', description: 'field "loginAt" given twice' }],
    });
  });

  it('treats null as not set', () => {
    expect(decode(UPDATE, '{"name": null, "age": null, "gender": null, "id": null}')).toEqual({ message: {}, violations: [] });
  });

  it('keeps zero values that are present (presence, not "non-zero means set")', () => {
    expect(decode(UPDATE, '{"name": "", "age": 0, "gender": 0, "loginAt": "0"}').message).toEqual({
      name: '',
      age: 0,
      gender: 0,
      loginAt: '0',
    });
  });

  it('names unknown fields', () => {
    expect(decode(UPDATE, '{"name": "Ann", "password_hash": "x", "Name": "y"}')).toEqual({
      message: { name: 'Ann' },
      violations: [
        { field: 'password_hash', description: 'unknown field "password_hash" in api.serverNameExample.v1.UpdateUserExampleByIDRequest' },
        { field: 'Name', description: 'unknown field "Name" in api.serverNameExample.v1.UpdateUserExampleByIDRequest' },
      ],
    });
  });

  it('takes enums by name or by any int32 number (open enums), and refuses other names and values', () => {
    expect(decode(UPDATE, '{"gender": "MALE"}').message).toEqual({ gender: 1 });
    expect(decode(UPDATE, '{"gender": 2}').message).toEqual({ gender: 2 });
    expect(decode(UPDATE, '{"gender": 7}').message).toEqual({ gender: 7 });
    const expected = (got: string) => ({
      field: 'gender',
      description: `expected one of UNKNOWN, MALE, FEMALE or an enum number, got ${got}`,
    });
    expect(decode(UPDATE, '{"gender": "male"}').violations).toEqual([expected('"male"')]);
    expect(decode(UPDATE, '{"gender": "1"}').violations).toEqual([expected('"1"')]);
    expect(decode(UPDATE, '{"gender": 2147483648}').violations).toEqual([expected('2147483648')]);
    expect(decode(UPDATE, '{"gender": true}').violations).toEqual([expected('true')]);
  });

  it('keeps int32 within its range', () => {
    expect(decode(UPDATE, '{"age": 2147483647}').message).toEqual({ age: 2147483647 });
    expect(decode(UPDATE, '{"age": -2147483648}').message).toEqual({ age: -2147483648 });
    for (const [json, got] of [
      ['2147483648', '2147483648'],
      ['-2147483649', '-2147483649'],
      ['1.5', '1.5'],
      ['"x"', '"x"'],
      ['true', 'true'],
      ['[]', 'an array'],
    ]) {
      expect(decode(UPDATE, `{"age": ${json}}`).violations, json).toEqual([
        { field: 'age', description: `expected a 32-bit integer, got ${got}` },
      ]);
    }
  });

  it('refuses 64-bit integers out of range or not integers', () => {
    expect(decode(UPDATE, '{"id": 18446744073709551616, "loginAt": 9223372036854775808}').violations).toEqual([
      { field: 'id', description: 'expected an unsigned 64-bit integer, got 18446744073709551616' },
      { field: 'loginAt', description: 'expected a 64-bit integer, got 9223372036854775808' },
    ]);
    expect(decode(UPDATE, '{"id": "-1"}').violations).toEqual([
      { field: 'id', description: 'expected an unsigned 64-bit integer, got "-1"' },
    ]);
    expect(decode(UPDATE, '{"id": {}}').violations).toEqual([
      { field: 'id', description: 'expected an unsigned 64-bit integer, got an object' },
    ]);
  });

  it('refuses a non-string for a string field', () => {
    expect(decode(UPDATE, '{"name": 5}').violations).toEqual([{ field: 'name', description: 'expected a string, got 5' }]);
  });

  it('decodes nested and repeated fields', () => {
    expect(
      decode(LIST, '{"params": {"page": 1, "columns": [{"name": "age", "exp": ">", "value": "3"}], "ids": [1, "18446744073709551615"]}}'),
    ).toEqual({
      message: { params: { page: 1, columns: [{ name: 'age', exp: '>', value: '3' }], ids: ['1', '18446744073709551615'] } },
      violations: [],
    });
  });

  it('names nested and repeated problems by their path', () => {
    const { violations } = decode(
      LIST,
      '{"params": {"limit": "x", "columns": [{"name": "age"}, {"name": 1, "bogus": true}, 3], "ids": [1, -1]}}',
    );
    expect(violations).toEqual([
      { field: 'params.limit', description: 'expected a 32-bit integer, got "x"' },
      { field: 'params.columns[1].name', description: 'expected a string, got 1' },
      { field: 'params.columns[1].bogus', description: 'unknown field "bogus" in api.types.Column' },
      { field: 'params.columns[2]', description: 'expected a JSON object for api.types.Column, got 3' },
      { field: 'params.ids[1]', description: 'expected an unsigned 64-bit integer, got -1' },
    ]);
  });

  it('refuses a repeated field that is not an array and a message that is not an object', () => {
    expect(decode(LIST, '{"params": {"columns": {}}}').violations).toEqual([
      { field: 'params.columns', description: 'expected an array, got an object' },
    ]);
    expect(decode(LIST, '{"params": "all"}').violations).toEqual([
      { field: 'params', description: 'expected a JSON object for api.types.Params, got "all"' },
    ]);
  });

  it('names the message itself when the body is not an object', () => {
    const bodies: [string, string][] = [
      ['[]', 'an array'],
      ['42', '42'],
      ['"x"', '"x"'],
      ['null', 'null'],
    ];
    for (const [json, got] of bodies) {
      expect(decode(UPDATE, json), json).toEqual({
        message: undefined,
        violations: [
          {
            field: 'api.serverNameExample.v1.UpdateUserExampleByIDRequest',
            description: `expected a JSON object for api.serverNameExample.v1.UpdateUserExampleByIDRequest, got ${got}`,
          },
        ],
      });
    }
  });
});
