import type { DocumentTypeDecoration } from '@graphql-typed-document-node/core';
import type { GraphQLFormattedError } from 'graphql';
import type { GraphqlHttpRequest } from '../lib/graphql/graphql-http-request.ts';

/**
 * The types of the gateway's door (gateway-door.ts), apart from it so that what the door is built from — the HTTP fast
 * path (stand-ins/), the WebSocket door (live/) — can name them without importing the module that imports them: no
 * import runs back up from gateway/'s folders to its root. Everyone else takes them from gateway-door.ts, which
 * re-exports them (the REST adapter may import nothing else of the gateway).
 */

/** An HTTP request to /graphql, its body already read (lib/graphql/graphql-http-request.ts). */
export type GatewayHttpRequest = GraphqlHttpRequest;

/** The gateway's answer to an HTTP request, as Apollo Server gives it (the lane's replies have the same form). */
export interface GatewayHttpReply {
  status: number;
  headers: Iterable<[string, string]>;
  body:
    | { kind: 'complete'; string: string }
    | {
        kind: 'chunked';
        asyncIterator: AsyncIterableIterator<string>;
        /** A stream that lasts (a subscription): how many bytes may wait for a slow reader, and who hears it was cut off. */
        live?: { maxBufferedBytes: number; onStall(): void };
      };
}

/**
 * An operation's text typed with its result and variables: graphql-codegen's TypedDocumentString (documentMode
 * 'string'), a String object whose value is the query, checked against the supergraph when it was generated. Never a
 * plain string, which carries no types, nor a parsed document.
 */
export type TypedQuery<TData, TVariables> = object & { valueOf(): string } & DocumentTypeDecoration<TData, TVariables>;

/** An operation's variables, by name. */
export type OperationVariables = Record<string, unknown>;

/**
 * An operation built in this process (the REST adapter's), with the caller's headers the subgraphs must see: a
 * generated document with its variables' type, or text built at run time (the Graph paths' `fields=` reads).
 */
export interface GatewayOperation<TQuery extends string | TypedQuery<unknown, never> = string, TVariables = OperationVariables> {
  query: TQuery;
  operationName: string;
  variables: TVariables;
  /** authorization, x-request-id, x-social-host, x-signed-request: what the subgraphs see of the caller. */
  headers: Readonly<Record<string, string | undefined>>;
}

/** A GraphQL result of an operation run in this process: typed by its document, or untyped data for text. */
export interface GatewayOperationResult<TData = Record<string, unknown>> {
  data?: TData | null;
  errors?: readonly GraphQLFormattedError[];
  extensions?: Record<string, unknown>;
  /** A write's change-log position, when the fetch cache is on (gateway-context.ts, LOG_POSITION_HEADER). */
  logPosition?: string;
}

/**
 * Runs an operation: a generated document gives its result the document's type (the data its selection describes, as
 * graphql-codegen read it from the schema), and takes only its variables; text gives untyped data.
 */
export interface ExecuteOperation {
  (operation: GatewayOperation): Promise<GatewayOperationResult>;
  <TData, TVariables extends OperationVariables>(
    operation: GatewayOperation<TypedQuery<TData, TVariables>, NoInfer<TVariables>>,
  ): Promise<GatewayOperationResult<TData>>;
}

/** An operation whose document is its text: what an executor runs once the types have done their work. */
export type TextOperation = GatewayOperation<string, OperationVariables>;

export interface GatewayDoor {
  /** Answers an HTTP request to /graphql. */
  serveHttp(request: GatewayHttpRequest): Promise<GatewayHttpReply>;
  /**
   * Runs an operation in this process with no HTTP request: it counts as trusted (no operation limits, no safelist:
   * lib/http/trusted-caller.ts), being built by the platform's own code.
   */
  execute: ExecuteOperation;
}
