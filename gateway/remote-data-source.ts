import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import { GraphQLError } from 'graphql';
import type { GatewayContext } from './gateway-context.ts';

type GatewayGraphQLResponse = Awaited<ReturnType<RemoteGraphQLDataSource['process']>>;

/** Reaches a subgraph over HTTP, carrying the caller's credentials and request id to it. */
export class PropagatingRemoteDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  override willSendRequest(options: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    const headers = options.request.http?.headers;
    if (!headers) return;
    const context = options.context as Partial<GatewayContext>;
    if (context.authorization) headers.set('authorization', context.authorization);
    if (context.requestId) headers.set('x-request-id', context.requestId);
    if (context.socialHost) headers.set('x-social-host', context.socialHost);
  }

  /**
   * A subgraph answers request errors (variable coercion, validation) with HTTP 400 and a GraphQL body. The base class
   * would replace them by "400: Bad Request" (code INTERNAL_SERVER_ERROR); passing the subgraph's own errors on instead
   * gives the caller the same message and code as the embedded mode.
   */
  override async process(options: GraphQLDataSourceProcessOptions<GatewayContext>): Promise<GatewayGraphQLResponse> {
    try {
      return await super.process(options);
    } catch (error) {
      const body = error instanceof GraphQLError ? (error.extensions.response as { body?: unknown } | undefined)?.body : undefined;
      if (isGraphqlErrorBody(body)) return { errors: body.errors };
      throw error;
    }
  }
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
