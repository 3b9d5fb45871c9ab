import { parse, validate, type DocumentNode } from 'graphql';
import type { SubgraphCacheViewing, SubgraphRequestInfo } from '../../subgraphs/subgraph.ts';
import type { GatewayContext } from '../gateway-context.ts';
import { cacheableDocument, type CacheableDocument } from './cacheable-document.ts';
import { reusableReply, usageOnlyReply, type FetchCache } from './fetch-cache.ts';
import { awaitWrite, fetchThroughCache } from './fetch-through-cache.ts';
import type { ResponseCacheSubgraph } from './response-cache.ts';

/** A subgraph's reply as the remote data source hands it on, and the max age its server's Cache-Control gave. */
export interface RemoteReply<T> {
  response: T & { data?: Record<string, unknown> | null; errors?: readonly unknown[]; extensions?: Record<string, unknown> };
  maxAgeSeconds: number;
}

/** Distinct subgraph queries worked out for the cache, at most this many, each of at most this many characters. */
const DOCUMENTS = 500;
const DOCUMENT_MAX_LENGTH = 16_384;

/**
 * The fetch cache in front of a subgraph served over HTTP (distributed topology): what in-process-data-source.ts does
 * for an embedded subgraph, from the subgraph's schema and viewer rule as `viewing` gives them
 * (subgraphs/cache-viewing.ts). A query its hints let the cache keep is read through it; a mutation's reply waits for
 * its changes to reach the cache; anything else, or a document the subgraph's schema does not validate (the subgraph
 * answers it), goes straight to the subgraph.
 */
export class RemoteFetchCaching {
  private readonly documents = new Map<string, CacheableDocument | undefined>();

  constructor(
    private readonly subgraph: string,
    private readonly cache: FetchCache,
    private readonly viewing: SubgraphCacheViewing,
  ) {}

  async through<T>(
    request: { query: string; operationName: string | undefined; variables: Record<string, unknown> | undefined },
    context: Partial<GatewayContext>,
    /** Sends `query` (the document's text, or the same with its entities' ids selected) to the subgraph. */
    fetch: (query: string, variables?: Record<string, unknown>) => Promise<RemoteReply<T>>,
  ): Promise<{ response: RemoteReply<T>['response']; fromCache?: { policy: CacheableDocument['policy'] } }> {
    const document = this.document(request.query, request.operationName);
    // A query the cache may keep is sent with its entities' ids selected (with-entity-ids.ts), as embedded ones run.
    const query = document?.cacheable?.text ?? request.query;
    const read = await fetchThroughCache(
      this.cache,
      document,
      { subgraph: this.subgraph, schema: this.viewing.schema, variables: request.variables },
      context,
      () => this.viewing.viewer(requestInfo(context)),
      async (variables) => {
        const { response, maxAgeSeconds } = await fetch(query, variables);
        return {
          value: response,
          data: response.data,
          reusable: reusableReply(response.errors, response.extensions),
          maxAgeSeconds,
          call: usageOnlyReply(response.errors, response.extensions),
        };
      },
    );
    if ('ran' in read) return { response: read.ran };
    return { response: { data: read.fromCache } as RemoteReply<T>['response'], fromCache: { policy: document!.policy } };
  }

  /** After a write sent around `through` (one carrying files, relayed as multipart): as `through` ends a write. */
  afterWrite(context: Partial<GatewayContext>): Promise<void> {
    return awaitWrite(this.cache, context);
  }

  /** What the response level (response-cache.ts) asks of this subgraph, from its viewing. */
  responseCaching(): ResponseCacheSubgraph {
    const { viewing } = this;
    return {
      viewer: (context) => viewing.viewer(requestInfo(context)),
      ...(viewing.admitCall && { admitCall: (context, objectId) => viewing.admitCall!(requestInfo(context), objectId) }),
    };
  }

  private document(query: string, operationName: string | undefined): CacheableDocument | undefined {
    const key = operationName === undefined ? query : `${operationName}\n${query}`;
    if (this.documents.has(key)) return this.documents.get(key);
    let parsed: DocumentNode;
    try {
      parsed = parse(query);
    } catch {
      return undefined;
    }
    const worked =
      validate(this.viewing.schema, parsed).length === 0 ? cacheableDocument(this.viewing.schema, parsed, operationName, query) : undefined;
    if (query.length > DOCUMENT_MAX_LENGTH) return worked && { ...worked, cacheable: undefined };
    if (this.documents.size >= DOCUMENTS) this.documents.delete(this.documents.keys().next().value!);
    this.documents.set(key, worked);
    return worked;
  }
}

function requestInfo(context: Partial<GatewayContext>): SubgraphRequestInfo {
  return {
    authorization: context.authorization,
    requestId: context.requestId,
    socialHost: context.socialHost,
    signedRequest: context.signedRequest,
  };
}
