import type express from 'express';

/**
 * Helpers of the document-vs-routes test: the routes an Express app really serves (walked from its router stack), and
 * small checks of Swagger 2.0 / OpenAPI 3 documents — references that resolve, path parameters that are declared, and
 * reply bodies that match their documented schema (the subset of JSON Schema the documents use).
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** One route as Express holds it: `ALL` for router.all(); the path as registered (string or RegExp). */
export interface ExpressRoute {
  method: string;
  path: string | RegExp;
}

interface Layer {
  route?: { path: string | RegExp; methods: Record<string, boolean> };
  handle?: { stack?: Layer[] };
  slash?: boolean;
  name?: string;
}

/**
 * Every route registered on the app, nested routers included. Routers must be mounted at the root (as every router of
 * the REST adapter is), or the paths would be relative; a router mounted elsewhere makes this throw rather than guess.
 */
export function expressRoutes(app: express.Express): ExpressRoute[] {
  const routes: ExpressRoute[] = [];
  const walk = (stack: readonly Layer[]) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on) routes.push({ method: method === '_all' ? 'ALL' : method.toUpperCase(), path: layer.route.path });
        }
      } else if (layer.handle?.stack) {
        if (!layer.slash) throw new Error(`router ${layer.name ?? ''} is mounted below the root: extend expressRoutes to prefix its paths`);
        walk(layer.handle.stack);
      }
    }
  };
  walk((app as unknown as { router: { stack: Layer[] } }).router.stack);
  return routes;
}

/** `/api/v1/userExample/:id` → `/api/v1/userExample/{id}` (OpenAPI's template syntax). */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

/** Resolves a local JSON pointer (`#/components/schemas/x`); undefined when it points nowhere. */
export function resolvePointer(document: Json, pointer: string): Json | undefined {
  if (!pointer.startsWith('#/')) return undefined;
  let node: Json | undefined = document;
  for (const raw of pointer.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Every `$ref` of the document that does not resolve, with where it was found. */
export function unresolvedReferences(document: Json): string[] {
  const problems: string[] = [];
  const walk = (node: Json, at: string) => {
    if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${at}/${index}`));
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && (typeof value !== 'string' || resolvePointer(document, value) === undefined))
          problems.push(`${at}: ${String(value)}`);
        else walk(value, `${at}/${key}`);
      }
    }
  };
  walk(document, '#');
  return problems;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Each operation of a document: its path, method and operation object (with the path item's parameters merged in). */
export function operationsOf(document: JsonObject): { path: string; method: string; operation: JsonObject; item: JsonObject }[] {
  const paths = (document.paths ?? {}) as Record<string, JsonObject>;
  const found: { path: string; method: string; operation: JsonObject; item: JsonObject }[] = [];
  for (const [path, item] of Object.entries(paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation && typeof operation === 'object' && !Array.isArray(operation)) found.push({ path, method, operation, item });
    }
  }
  return found;
}

/** Problems of shape that tools trip on: undeclared or optional path parameters, duplicate operationIds, no 200 reply. */
export function operationProblems(document: JsonObject): string[] {
  const problems: string[] = [];
  const ids = new Map<string, string>();
  for (const { path, method, operation, item } of operationsOf(document)) {
    const where = `${method.toUpperCase()} ${path}`;
    const parameters = [...((item.parameters ?? []) as JsonObject[]), ...((operation.parameters ?? []) as JsonObject[])].map((parameter) =>
      typeof parameter.$ref === 'string' ? (resolvePointer(document, parameter.$ref) as JsonObject) : parameter,
    );
    for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
      const declared = parameters.find((parameter) => parameter.in === 'path' && parameter.name === name);
      if (!declared) problems.push(`${where}: path parameter {${name}} is not declared`);
      else if (declared.required !== true) problems.push(`${where}: path parameter {${name}} must be required`);
    }
    for (const parameter of parameters) {
      if (parameter.in === 'path' && !path.includes(`{${String(parameter.name)}}`))
        problems.push(`${where}: declares path parameter ${String(parameter.name)} not in the path`);
    }
    const id = operation.operationId;
    if (typeof id !== 'string' || id === '') problems.push(`${where}: no operationId`);
    else if (ids.has(id)) problems.push(`${where}: operationId ${id} also used by ${ids.get(id)}`);
    else ids.set(id, where);
    const responses = (operation.responses ?? {}) as JsonObject;
    if (!('200' in responses)) problems.push(`${where}: no 200 response`);
  }
  return problems;
}

/**
 * Where `value` breaks `schema` (type, required, properties, items, enum, allOf, anyOf, oneOf, $ref); empty when it
 * matches. Formats, patterns and bounds are not checked: the front-door tests check values exactly.
 */
export function schemaViolations(document: Json, schema: Json | undefined, value: unknown, at = '$'): string[] {
  if (schema === undefined || schema === null || typeof schema !== 'object' || Array.isArray(schema)) return [];
  if (typeof schema.$ref === 'string') {
    const target = resolvePointer(document, schema.$ref);
    return target === undefined ? [`${at}: unresolved ${schema.$ref}`] : schemaViolations(document, target, value, at);
  }
  const problems: string[] = [];
  if (Array.isArray(schema.allOf)) for (const part of schema.allOf) problems.push(...schemaViolations(document, part, value, at));
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const options = schema[keyword];
    if (Array.isArray(options) && !options.some((option) => schemaViolations(document, option, value, at).length === 0)) {
      problems.push(`${at}: matches none of ${keyword}`);
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => option === value))
    problems.push(`${at}: ${JSON.stringify(value)} is not in the enum`);
  const type = schema.type;
  if (typeof type === 'string' && !hasType(type, value))
    return [...problems, `${at}: expected ${type}, got ${JSON.stringify(value)?.slice(0, 80)}`];
  if (type === 'object' || (type === undefined && schema.properties !== undefined)) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return problems;
    const object = value as Record<string, unknown>;
    for (const name of (schema.required ?? []) as string[]) if (!(name in object)) problems.push(`${at}: missing ${name}`);
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    for (const [name, inner] of Object.entries(object)) {
      if (name in properties) problems.push(...schemaViolations(document, properties[name], inner, `${at}.${name}`));
    }
  }
  if (type === 'array' && Array.isArray(value))
    value.forEach((item, index) => problems.push(...schemaViolations(document, schema.items, item, `${at}[${index}]`)));
  return problems;
}

function hasType(type: string, value: unknown): boolean {
  switch (type) {
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}
