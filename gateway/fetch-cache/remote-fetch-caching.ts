import { parse, validate, type DocumentNode } from 'graphql';
import type { SubgraphCacheViewing } from '../../subgraphs/subgraph.ts';
import type { GatewayContext } from '../gateway-context.ts';
import { cacheableDocument, type CacheableDocument } from './cacheable-document.ts';
import type { FetchCache } from './fetch-cache.ts';

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
    fetch: (query: string) => Promise<RemoteReply<T>>,
  ): Promise<{ response: RemoteReply<T>['response']; fromCache?: { policy: CacheableDocument['policy'] } }> {
    const document = this.document(request.query, request.operationName);
    if (document?.writes) {
      const { response } = await fetch(request.query);
      const position = await this.cache.afterWrite();
      if (position !== undefined && context.written) context.written.through = position;
      return { response };
    }
    const cacheable = document?.cacheable;
    if (!cacheable || !this.cache.serving()) return { response: (await fetch(request.query)).response };
    const viewer = await this.viewing.viewer({
      authorization: context.authorization,
      requestId: context.requestId,
      socialHost: context.socialHost,
      signedRequest: context.signedRequest,
    });
    if (viewer === undefined) return { response: (await fetch(request.query)).response };
    const read = await this.cache.read(
      {
        subgraph: this.subgraph,
        documentKey: cacheable.key,
        schema: this.viewing.schema,
        operation: cacheable.operation,
        fragments: cacheable.fragments,
        variables: request.variables,
        viewer,
      },
      async () => {
        const { response, maxAgeSeconds } = await fetch(cacheable.text ?? request.query);
        const reusable = !response.errors && (!response.extensions || Object.keys(response.extensions).length === 0);
        return { value: response, data: response.data, reusable, maxAgeSeconds };
      },
    );
    if ('ran' in read) return { response: read.ran };
    return { response: { data: read.fromCache } as RemoteReply<T>['response'], fromCache: { policy: document.policy } };
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
