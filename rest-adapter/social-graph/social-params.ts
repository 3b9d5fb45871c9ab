import { isLosslessNumber, parse as parseLossless, stringify as stringifyLossless } from 'lossless-json';
import type { Request } from 'express';
import { parseFields, type FieldSelection } from './graph-fields.ts';
import { GRAPH_ERRORS } from './graph-errors.ts';
import type { FieldSpec } from './social-node-types.ts';
import { GraphReplyError } from './graph-reply-error.ts';
import type { Params } from './social-route-table.ts';

/** Reading a Graph request's parameters: from the query string or the body (a form or JSON), typed per parameter, and `fields`. */

/** A field that is a collection or an expansion of its own (with permissions of its own), not a field of the node. */
export function isEdgeLike(spec: FieldSpec | undefined): boolean {
  return spec !== undefined && (spec.kind === 'edge' || spec.kind === 'list' || spec.kind === 'parameterised');
}

/** `fields` as parsed; undefined when absent or empty (the node's default fields apply). */
export function fieldsOf(params: Params): FieldSelection[] | undefined {
  const fields = params.fields;
  return fields === undefined || fields.trim() === '' ? undefined : parseFields(fields);
}

/** A list parameter: a JSON array, or a comma-separated list. */
export function list(text: string): string[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      // Numbers keep their digits: lists carry 64-bit ids.
      parsed = parseLossless(trimmed, undefined, (digits: string) => digits);
    } catch {
      throw new GraphReplyError(
        GRAPH_ERRORS.invalidParameter('Invalid parameter', 'A list parameter must be a JSON array or a comma-separated list.'),
      );
    }
    if (Array.isArray(parsed)) return parsed.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)));
  }
  return trimmed === '' ? [] : trimmed.split(',').map((item) => item.trim());
}

export function jsonParameter(name: string, text: string): unknown {
  try {
    return parseLossless(text, undefined, (digits: string) => Number(digits));
  } catch {
    throw new GraphReplyError(GRAPH_ERRORS.invalidParameter('Invalid parameter', `The parameter ${name} must be valid JSON.`));
  }
}

export function numberParameter(name: string, text: string): number {
  if (!/^-?\d+(\.\d+)?$/.test(text.trim())) {
    throw new GraphReplyError(GRAPH_ERRORS.invalidParameter('Invalid parameter', `The parameter ${name} must be a number, got "${text}".`));
  }
  return Number(text.trim());
}

export function optionalBoolean(name: string, text: string | undefined): boolean | null {
  if (text === undefined) return null;
  const value = parseBoolean(text);
  if (value === undefined)
    throw new GraphReplyError(GRAPH_ERRORS.invalidParameter('Invalid parameter', `${name} must be true or false, got "${text}".`));
  return value;
}

/** Graph booleans: true/false (any case) and 1/0. */
export function parseBoolean(text: string): boolean | undefined {
  const value = text.trim().toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return undefined;
}

/**
 * Parameters from the query string and the body (form-urlencoded or JSON), as the platform accepts them; a body value wins
 * over the same name in the query. JSON scalars keep their text (`true`, `5`); objects and arrays travel as JSON text.
 */
export function readParams(req: Request): Params {
  // No prototype: a parameter named `__proto__` or `constructor` is a parameter like any other, never Object's.
  const params: Params = Object.create(null) as Params;
  for (const [name, value] of Object.entries(req.query)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') params[name] = first;
  }
  let body: unknown = req.body;
  if (typeof body === 'string') {
    if (body.trim() === '') return params;
    try {
      body = parseLossless(body);
    } catch (error) {
      throw new GraphReplyError(
        GRAPH_ERRORS.invalidParameter('Invalid parameter', `The JSON body is not valid JSON: ${(error as Error).message}`),
      );
    }
  }
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      if (value === undefined || value === null) continue;
      // Scalars keep their text (a 64-bit id sent as a number keeps every digit); objects and arrays travel as JSON text,
      // their numbers written exactly as sent.
      params[name] = typeof value === 'string' ? value : isLosslessNumber(value) ? value.toString() : nestedText(value);
    }
  }
  return params;
}

/**
 * An object or array parameter as JSON text. Re-serialising recurses as deep as the value nests, and a body nested
 * thousands deep — which the parser, iterative, accepted — would overflow the stack there (a RangeError answered as a
 * server error): such a value is refused as the malformed parameter it is.
 */
function nestedText(value: unknown): string {
  try {
    return stringifyLossless(value) ?? '';
  } catch (error) {
    if (error instanceof RangeError) {
      throw new GraphReplyError(GRAPH_ERRORS.invalidParameter('Invalid parameter', 'The JSON body nests too deeply.'));
    }
    throw error;
  }
}

/** The route of a Graph-style path for metrics: ids become {id}, so that each node does not make a series of its own. */
export function metricsRoute(version: string | undefined, node: string, edge: string | undefined): string {
  const prefix = version === undefined ? '' : '/{version}';
  const nodePart = node === 'me' ? 'me' : '{id}';
  const edgePart = edge === undefined ? '' : /^[a-z_]{1,40}$/.test(edge) ? `/${edge}` : '/{edge}';
  return `${prefix}/${nodePart}${edgePart}`;
}
