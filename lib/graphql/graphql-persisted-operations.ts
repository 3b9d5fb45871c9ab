import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { getOperationAST, parse } from 'graphql';
import { ConfigError } from '../config.ts';
import { readGraphqlHttpRequest, sendGraphqlError } from './graphql-operation-limits.ts';

/**
 * Persisted operations: a safelist of operations, read at start-up from a manifest in Apollo's format
 * (`{"format":"apollo-persisted-query-manifest","version":1,"operations":[{"id","name","type","body"}]}`, as
 * `@apollo/generate-persisted-query-manifest` writes it or `createPersistedQueryManifest` below builds it).
 *
 * A client names a listed operation by its id, in `extensions.persistedQuery.sha256Hash` (Apollo Client's persisted
 * query link) or `documentId` (GraphQL over HTTP's persisted documents), with or without the text. The id is resolved
 * to the listed body in front of Apollo Server, so from there on the operation is an ordinary one (and its limits apply).
 *
 * - `allow`: listed operations run by id; any other operation still runs (and Apollo's automatic persisted queries work).
 * - `require`: only listed operations run, by id or by their exact text; anything else is refused with HTTP 400 and
 *   PERSISTED_QUERY_NOT_IN_LIST, before it is parsed. Trusted callers (the REST adapter's generated operations) are exempt.
 */

export type PersistedOperationsMode = 'off' | 'allow' | 'require';

export interface PersistedOperationsConfig {
  mode: PersistedOperationsMode;
  /** The manifest file; required unless mode is `off`. */
  manifestPath: string | undefined;
}

export interface PersistedQueryManifestOperation {
  id: string;
  name: string;
  type: 'query' | 'mutation' | 'subscription';
  body: string;
}

export interface PersistedQueryManifest {
  format: 'apollo-persisted-query-manifest';
  version: 1;
  operations: PersistedQueryManifestOperation[];
}

/** The safelist, ready to consult. */
export interface PersistedOperations {
  mode: Exclude<PersistedOperationsMode, 'off'>;
  /** The listed body of an id, if listed. */
  body(id: string): string | undefined;
  /** Whether this exact text is a listed body. */
  listsText(query: string): boolean;
  size: number;
}

/** `extensions.code` of the refusals (Apollo Router's codes). */
export const PERSISTED_OPERATION_CODES = {
  notInList: 'PERSISTED_QUERY_NOT_IN_LIST',
} as const;

const MANIFEST_VARIABLE = 'GRAPHQL_PERSISTED_OPERATIONS_MANIFEST';

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Builds a manifest from operation documents (one operation each), with Apollo's default id: the SHA-256 of the body in
 * hex, which is also what Apollo Client's persisted query link sends.
 */
export function createPersistedQueryManifest(bodies: readonly string[]): PersistedQueryManifest {
  return {
    format: 'apollo-persisted-query-manifest',
    version: 1,
    operations: bodies.map((body) => {
      const operation = getOperationAST(parse(body));
      if (!operation) throw new Error('each manifest body must hold exactly one operation');
      return { id: sha256(body), name: operation.name?.value ?? '', type: operation.operation, body };
    }),
  };
}

function invalid(problem: string): ConfigError {
  return new ConfigError(MANIFEST_VARIABLE, problem);
}

/** Checks a parsed manifest; throws ConfigError naming the manifest variable and the problem. */
export function checkManifest(value: unknown, path: string): PersistedQueryManifest {
  const manifest = value as Partial<PersistedQueryManifest> | null;
  if (
    typeof manifest !== 'object' ||
    manifest === null ||
    manifest.format !== 'apollo-persisted-query-manifest' ||
    manifest.version !== 1
  ) {
    throw invalid(`(${path}) must be an apollo-persisted-query-manifest of version 1`);
  }
  if (!Array.isArray(manifest.operations)) throw invalid(`(${path}) must list "operations"`);
  const bodies = new Map<string, string>();
  manifest.operations.forEach((operation: Partial<PersistedQueryManifestOperation>, index) => {
    const where = `(${path}) operation ${index}`;
    if (typeof operation?.id !== 'string' || operation.id === '') throw invalid(`${where} has no "id"`);
    if (typeof operation.body !== 'string') throw invalid(`${where} (${operation.id}) has no "body"`);
    const known = bodies.get(operation.id);
    if (known !== undefined && known !== operation.body)
      throw invalid(`${where}: id ${operation.id} is listed twice with different bodies`);
    try {
      if (!getOperationAST(parse(operation.body))) throw new Error('it must hold exactly one operation');
    } catch (error) {
      throw invalid(`${where} (${operation.id}) is not a GraphQL operation: ${(error as Error).message}`);
    }
    bodies.set(operation.id, operation.body);
  });
  return manifest as PersistedQueryManifest;
}

/** The safelist of a manifest. */
export function createPersistedOperations(
  mode: Exclude<PersistedOperationsMode, 'off'>,
  manifest: PersistedQueryManifest,
): PersistedOperations {
  const byId = new Map(manifest.operations.map((operation) => [operation.id, operation.body]));
  const textHashes = new Set(manifest.operations.map((operation) => sha256(operation.body)));
  return {
    mode,
    body: (id) => byId.get(id),
    listsText: (query) => textHashes.has(sha256(query)),
    size: byId.size,
  };
}

/** Reads the configured manifest (at start-up: a missing or broken file stops the process); undefined when off. */
export function loadPersistedOperations(config: PersistedOperationsConfig): PersistedOperations | undefined {
  if (config.mode === 'off') return undefined;
  const path = config.manifestPath;
  if (path === undefined) throw invalid(`is required when GRAPHQL_PERSISTED_OPERATIONS=${config.mode}`);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw invalid(`(${path}) cannot be read: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw invalid(`(${path}) is not JSON: ${(error as Error).message}`);
  }
  return createPersistedOperations(config.mode, checkManifest(json, path));
}

/** The id a request names: `extensions.persistedQuery.sha256Hash`, or `documentId` (an optional `sha256:` prefix dropped). */
function requestedId(extensions: unknown, documentId: unknown): string | undefined {
  const persisted = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | undefined)?.persistedQuery;
  if (typeof persisted?.sha256Hash === 'string' && persisted.sha256Hash !== '') return persisted.sha256Hash;
  if (typeof documentId === 'string' && documentId !== '') return documentId.replace(/^sha256:/, '');
  return undefined;
}

/** Replaces the id of a request by the listed text, in the body or (GET) the query string Apollo Server reads. */
function resolveToText(req: Request, body: string): void {
  if (req.method === 'GET' || req.method === 'HEAD') {
    const at = req.url.indexOf('?');
    const search = new URLSearchParams(at >= 0 ? req.url.slice(at + 1) : '');
    search.set('query', body);
    search.delete('documentId');
    const extensions = search.get('extensions');
    if (extensions !== null) {
      try {
        const { persistedQuery: _resolved, ...rest } = JSON.parse(extensions) as Record<string, unknown>;
        if (Object.keys(rest).length > 0) search.set('extensions', JSON.stringify(rest));
        else search.delete('extensions');
      } catch {
        // Not JSON: Apollo Server refuses it in its own words.
      }
    }
    req.url = `${at >= 0 ? req.url.slice(0, at) : req.url}?${search.toString()}`;
    return;
  }
  const request = req.body as Record<string, unknown>;
  const extensions = request.extensions as Record<string, unknown> | undefined;
  if (extensions && typeof extensions === 'object') {
    // Apollo Server would check that the id is the SHA-256 of the text; a manifest's ids need not be.
    const { persistedQuery: _resolved, ...rest } = extensions;
    request.extensions = rest;
  }
  delete request.documentId;
  request.query = body;
}

/**
 * Express middleware in front of Apollo Server: resolves listed ids to their text and, in `require` mode, refuses any
 * operation that is not listed.
 * @param isTrusted requests it answers true for are not held to the list (the REST adapter over HTTP).
 */
export function persistedOperationsMiddleware(operations: PersistedOperations, isTrusted: (req: Request) => boolean): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const request = readGraphqlHttpRequest(req);
    if (!request) {
      next();
      return;
    }
    const id = requestedId(request.extensions, request.documentId);
    const listedBody = id === undefined ? undefined : operations.body(id);
    if (listedBody !== undefined) {
      resolveToText(req, listedBody);
      next();
      return;
    }
    if (operations.mode === 'allow' || isTrusted(req)) {
      next();
      return;
    }
    if (typeof request.query === 'string' && operations.listsText(request.query)) {
      next();
      return;
    }
    if (id === undefined && typeof request.query !== 'string') {
      // Neither id nor text: Apollo Server answers that in its own words.
      next();
      return;
    }
    sendGraphqlError(
      res,
      400,
      PERSISTED_OPERATION_CODES.notInList,
      id === undefined
        ? 'operation is not in the persisted-operations safelist: send the id of a listed operation'
        : `persisted operation ${id} is not in the safelist`,
    );
  };
}
