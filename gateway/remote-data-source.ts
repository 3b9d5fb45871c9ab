import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLError } from 'graphql';
import { findUploads, postMultipartOperation, type FoundUpload } from '../lib/graphql/graphql-multipart.ts';
import { SIGNED_REQUEST_HEADER } from '../lib/auth/signed-request.ts';
import type { Tracing } from '../lib/telemetry/tracing.ts';
import { TRUSTED_CALLER_HEADER } from '../lib/http/trusted-caller.ts';
import { collectExtensions, type GatewayContext } from './gateway-context.ts';

type GatewayGraphQLResponse = Awaited<ReturnType<RemoteGraphQLDataSource['process']>>;

/**
 * Reaches a subgraph over HTTP, carrying the caller's credentials, request id and signed-request description to it, and
 * forwarding uploads, which @apollo/gateway cannot do by itself (apollographql/federation#1385).
 */
export class PropagatingRemoteDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  constructor(
    config: ConstructorParameters<typeof RemoteGraphQLDataSource<GatewayContext>>[0],
    /** Adds the trace context (traceparent) of the fetch to each subgraph request when tracing is on. */
    private readonly tracing?: Tracing,
    /** GRAPHQL_TRUSTED_CALLER_SECRET: lets the fetches past the subgraph servers' operation limits (lib/http/trusted-caller.ts). */
    private readonly trustedCallerSecret?: string,
  ) {
    super(config);
  }

  /** Keeps what the subgraph reported for the caller (FORWARDED_EXTENSIONS) before the gateway drops its extensions. */
  override didReceiveResponse({ response, context }: Parameters<NonNullable<RemoteGraphQLDataSource<GatewayContext>['didReceiveResponse']>>[0]) {
    collectExtensions(context, response.extensions);
    return response;
  }

  override willSendRequest(options: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    const headers = options.request.http?.headers;
    if (!headers) return;
    for (const [name, value] of Object.entries(this.outgoingHeaders(options.context))) headers.set(name, value);
  }

  /** The caller's headers the subgraph must see, and the trace context of this fetch (@apollo/gateway's fetch span). */
  private outgoingHeaders(context: Partial<GatewayContext>): Record<string, string> {
    const headers = propagatedHeaders(context);
    if (this.trustedCallerSecret) headers[TRUSTED_CALLER_HEADER] = this.trustedCallerSecret;
    this.tracing?.inject(headers);
    return headers;
  }

  /**
   * A subgraph answers request errors (variable coercion, validation) with HTTP 400 and a GraphQL body. The base class
   * would replace them by "400: Bad Request" (code INTERNAL_SERVER_ERROR); passing the subgraph's own errors on instead
   * gives the caller the same message and code as the embedded mode.
   */
  override async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    const uploads = findUploads(options.request.variables);
    if (uploads.length > 0) return this.processUpload(options, uploads);
    try {
      return await super.process(options);
    } catch (error) {
      const body = error instanceof GraphQLError ? (error.extensions.response as { body?: unknown } | undefined)?.body : undefined;
      if (isGraphqlErrorBody(body)) return { errors: body.errors };
      throw error;
    }
  }

  /**
   * A fetch whose variables hold files (the base class would serialise them to `{}`): sent as a GraphQL multipart
   * request, each file streamed from the gateway's spooled copy straight into the request body.
   */
  private async processUpload(
    options: GraphQLDataSourceProcessOptions<GatewayContext>,
    uploads: FoundUpload[],
  ): Promise<GatewayGraphQLResponse> {
    const headers = this.outgoingHeaders(options.context);
    const request = {
      query: options.request.query ?? '',
      operationName: options.request.operationName,
      variables: options.request.variables ?? {},
    };
    let reply;
    try {
      reply = await postMultipartOperation(this.url, request, uploads, headers);
    } catch (error) {
      // A file the client never sent whole (a part missing from the body, a body cut short) fails the relay too: that is
      // the request's fault, not the subgraph's.
      const broken = await brokenUpload(uploads);
      if (broken) {
        throw new GraphQLError(`the file of variable "${broken.path.join('.')}" was not received whole: ${broken.reason}`, {
          extensions: { code: 'BAD_USER_INPUT' },
        });
      }
      throw new GraphQLError(`the subgraph at ${this.url} could not be reached: ${(error as Error).message}`, {
        extensions: { code: 'SUBGRAPH_UNREACHABLE' },
        originalError: error as Error,
      });
    }
    const body = reply.body as { data?: Record<string, unknown> | null; errors?: GatewayGraphQLResponse['errors'] } | undefined;
    if (body && typeof body === 'object' && (body.data !== undefined || isGraphqlErrorBody(reply.body))) {
      return { ...(body.data !== undefined ? { data: body.data } : {}), ...(body.errors ? { errors: body.errors } : {}) };
    }
    throw new GraphQLError(`${reply.status}: ${reply.statusText}`, {
      extensions: {
        code: 'INTERNAL_SERVER_ERROR',
        response: { url: this.url, status: reply.status, statusText: reply.statusText, body: reply.text },
      },
    });
  }
}

/** The first upload whose file failed on the client's side (never arrived, or arrived cut short), and why. */
async function brokenUpload(uploads: readonly FoundUpload[]): Promise<{ path: (string | number)[]; reason: string } | undefined> {
  for (const { path, upload } of uploads) {
    try {
      const file = await upload.promise;
      const failure = file.capacitor.errored;
      if (failure) return { path, reason: failure.message };
    } catch (error) {
      return { path, reason: (error as Error).message };
    }
  }
  return undefined;
}

/** What a subgraph must see of the caller's request. */
function propagatedHeaders(context: Partial<GatewayContext>): Record<string, string> {
  const headers: Record<string, string> = {};
  if (context.authorization) headers.authorization = context.authorization;
  if (context.requestId) headers['x-request-id'] = context.requestId;
  if (context.socialHost) headers['x-social-host'] = context.socialHost;
  if (context.signedRequest) headers[SIGNED_REQUEST_HEADER] = context.signedRequest;
  return headers;
}

function isGraphqlErrorBody(body: unknown): body is { errors: GatewayGraphQLResponse['errors'] & object } {
  if (typeof body !== 'object' || body === null) return false;
  const errors = (body as { errors?: unknown }).errors;
  return (
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((error) => typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string')
  );
}
