import { RemoteGraphQLDataSource, type GraphQLDataSourceProcessOptions } from '@apollo/gateway';
import type { GatewayContext } from './gateway-context.ts';

/** Reaches a subgraph over HTTP, carrying the caller's credentials and request id to it. */
export class PropagatingRemoteDataSource extends RemoteGraphQLDataSource<GatewayContext> {
  override willSendRequest(options: GraphQLDataSourceProcessOptions<GatewayContext>): void {
    const headers = options.request.http?.headers;
    if (!headers) return;
    const context = options.context as Partial<GatewayContext>;
    if (context.authorization) headers.set('authorization', context.authorization);
    if (context.requestId) headers.set('x-request-id', context.requestId);
  }
}
