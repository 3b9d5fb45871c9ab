import { GraphQLError, GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { parseInt64, parseUint64 } from '../int64.ts';

/**
 * 64-bit integer scalars. Output is always a decimal string (JSON numbers lose digits past 2^53 in JavaScript clients);
 * input may be a string or an integer literal of any size, or a JSON number only while it is a safe integer, since a larger
 * one has already lost its digits when the request was parsed.
 */
function int64Scalar(name: string, description: string, parse: (text: string) => string | undefined, expected: string) {
  const fromValue = (value: unknown): string => {
    let text: string | undefined;
    if (typeof value === 'string') text = parse(value.trim());
    else if (typeof value === 'number' && Number.isSafeInteger(value)) text = parse(String(value));
    else if (typeof value === 'bigint') text = parse(value.toString());
    if (typeof value === 'number' && Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw new GraphQLError(
        `${name} cannot take the JSON number ${value}: a number beyond 2^53 has already lost digits; send 64-bit integers as strings`,
      );
    }
    if (text === undefined) {
      throw new GraphQLError(
        `${name} cannot represent ${JSON.stringify(typeof value === 'bigint' ? value.toString() : value)}: expected ${expected}`,
      );
    }
    return text;
  };
  return new GraphQLScalarType<string, string>({
    name,
    description,
    serialize: (value) => fromValue(value),
    parseValue: (value) => fromValue(value),
    parseLiteral: (node: ValueNode) => {
      // Integer literals keep their digits in the AST, so large ones are exact here.
      if (node.kind === Kind.INT || node.kind === Kind.STRING) return fromValue(node.value);
      throw new GraphQLError(`${name} cannot represent a ${node.kind} literal: expected ${expected}`, { nodes: node });
    },
    extensions: { jsonType: 'string' },
  });
}

export const UInt64Scalar = int64Scalar(
  'UInt64',
  'An unsigned 64-bit integer (0 to 18446744073709551615), written as a decimal string so that no digit is lost.',
  parseUint64,
  'an unsigned 64-bit integer as a decimal string',
);

export const Int64Scalar = int64Scalar(
  'Int64',
  'A signed 64-bit integer, written as a decimal string so that no digit is lost.',
  parseInt64,
  'a signed 64-bit integer as a decimal string',
);
