import { isLosslessNumber, parse as parseLossless, type LosslessNumber } from 'lossless-json';
import type { FieldViolation } from '../../lib/errors.ts';
import { INT32_MAX, INT32_MIN, parseInt64, parseUint64 } from '../../lib/int64.ts';

/**
 * A strict decoder of proto3 JSON (protojson, as grpc-gateway reads it) for request bodies: camelCase or proto field names,
 * 64-bit integers as strings or numbers (kept as decimal text, never a JavaScript number), int32 as numbers or numeric
 * strings, enums by name or number, `null` meaning "not set". Unlike grpc-gateway it refuses unknown fields, and it reports
 * every problem of a body at once.
 */

export type FieldType =
  | 'string'
  /** A proto string that also takes a JSON number or boolean as its text (the reference's untyped `interface{}` fields). */
  | 'scalarText'
  | 'int32'
  | 'int64'
  | 'uint64'
  | { enum: Readonly<Record<string, number>> }
  | { message: MessageSpec }
  | { repeated: FieldType };

export interface FieldSpec {
  type: FieldType;
  /** The proto field name, accepted as well as the JSON name (the key of `fields`). */
  protoName?: string;
}

export interface MessageSpec {
  /** Fully qualified message name, for messages. */
  name: string;
  fields: Readonly<Record<string, FieldSpec>>;
}

/** A decoded value: strings for string and 64-bit fields, numbers for int32 and enums, objects and arrays. */
export type Decoded = string | number | Decoded[] | { [field: string]: Decoded };

/** Parses a JSON body keeping every number's digits; throws SyntaxError with a position for malformed JSON. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === '') return {};
  return parseLossless(text);
}

function describeJson(value: unknown): string {
  if (isLosslessNumber(value)) return (value as LosslessNumber).value;
  if (Array.isArray(value)) return 'an array';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return JSON.stringify(value);
}

function numberText(value: unknown): string | undefined {
  if (isLosslessNumber(value)) return (value as LosslessNumber).value;
  if (typeof value === 'string') return value.trim();
  return undefined;
}

function decodeInteger(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (/^-?\d+$/.test(text)) return BigInt(text).toString();
  // protojson also accepts integral values written with a fraction or exponent (10.0, 1e3); those are only taken while
  // exact in a double, so no digit can be lost on the way.
  if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text)) {
    const number = Number(text);
    if (Number.isSafeInteger(number)) return String(number);
  }
  return undefined;
}

function decodeValue(type: FieldType, value: unknown, path: string, violations: FieldViolation[]): Decoded | undefined {
  if (typeof type === 'string') {
    switch (type) {
      case 'string':
        if (typeof value === 'string') return value;
        violations.push({ field: path, description: `expected a string, got ${describeJson(value)}` });
        return undefined;
      case 'scalarText':
        if (typeof value === 'string') return value;
        if (typeof value === 'boolean') return String(value);
        if (isLosslessNumber(value)) return (value as LosslessNumber).value;
        violations.push({ field: path, description: `expected a string, number or boolean, got ${describeJson(value)}` });
        return undefined;
      case 'int32': {
        const text = decodeInteger(numberText(value));
        const number = text === undefined ? Number.NaN : Number(text);
        if (Number.isInteger(number) && number >= INT32_MIN && number <= INT32_MAX) return number;
        violations.push({ field: path, description: `expected a 32-bit integer, got ${describeJson(value)}` });
        return undefined;
      }
      case 'int64': {
        const text = decodeInteger(numberText(value));
        const parsed = text === undefined ? undefined : parseInt64(text);
        if (parsed !== undefined) return parsed;
        violations.push({ field: path, description: `expected a 64-bit integer, got ${describeJson(value)}` });
        return undefined;
      }
      case 'uint64': {
        const text = decodeInteger(numberText(value));
        const parsed = text === undefined ? undefined : parseUint64(text);
        if (parsed !== undefined) return parsed;
        violations.push({ field: path, description: `expected an unsigned 64-bit integer, got ${describeJson(value)}` });
        return undefined;
      }
    }
  }
  if ('enum' in type) {
    if (typeof value === 'string' && Object.hasOwn(type.enum, value)) return type.enum[value]!;
    const text = isLosslessNumber(value) ? decodeInteger((value as LosslessNumber).value) : undefined;
    const number = text === undefined ? Number.NaN : Number(text);
    // Proto3 enums are open: any int32 decodes; whether it is a defined value is the service's rule.
    if (Number.isInteger(number) && number >= INT32_MIN && number <= INT32_MAX) return number;
    violations.push({
      field: path,
      description: `expected one of ${Object.keys(type.enum).join(', ')} or an enum number, got ${describeJson(value)}`,
    });
    return undefined;
  }
  if ('repeated' in type) {
    if (!Array.isArray(value)) {
      violations.push({ field: path, description: `expected an array, got ${describeJson(value)}` });
      return undefined;
    }
    const items: Decoded[] = [];
    value.forEach((item, index) => {
      const decoded = decodeValue(type.repeated, item, `${path}[${index}]`, violations);
      if (decoded !== undefined) items.push(decoded);
    });
    return items;
  }
  return decodeMessage(type.message, value, path, violations);
}

/**
 * Decodes `value` as a message. Returns the fields present (by JSON name), or undefined when the value is not an object.
 * Problems are appended to `violations` with paths such as `params.columns[0].name`.
 */
export function decodeMessage(
  spec: MessageSpec,
  value: unknown,
  path: string,
  violations: FieldViolation[],
): { [field: string]: Decoded } | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || isLosslessNumber(value)) {
    violations.push({ field: path || spec.name, description: `expected a JSON object for ${spec.name}, got ${describeJson(value)}` });
    return undefined;
  }
  const byName = new Map<string, string>();
  for (const [jsonName, field] of Object.entries(spec.fields)) {
    byName.set(jsonName, jsonName);
    if (field.protoName) byName.set(field.protoName, jsonName);
  }
  const result: { [field: string]: Decoded } = {};
  for (const [key, raw] of Object.entries(value as Record<string, unknown>)) {
    const jsonName = byName.get(key);
    const fieldPath = path ? `${path}.${key}` : key;
    if (!jsonName) {
      violations.push({
        field: fieldPath.slice(0, 200),
        description: `unknown field "${key.length <= 64 ? key : `${key.slice(0, 63)}…`}" in ${spec.name}`,
      });
      continue;
    }
    if (Object.hasOwn(result, jsonName)) {
      violations.push({ field: fieldPath, description: `field "${jsonName}" given twice` });
      continue;
    }
    if (raw === null) continue; // protojson: null means the default, i.e. not set.
    const decoded = decodeValue(spec.fields[jsonName]!.type, raw, fieldPath, violations);
    if (decoded !== undefined) result[jsonName] = decoded;
  }
  return result;
}
