import { performance } from 'node:perf_hooks';
import type { ApolloServerPlugin } from '@apollo/server';
import { trace } from '@opentelemetry/api';
import type { Telemetry } from './telemetry.ts';

/**
 * Reports each GraphQL operation an Apollo Server executes — the gateway's, or a subgraph server's — to the metrics
 * (latency by operation name and type, errors by extensions.code), and names the operation on the request's span. The
 * gateway's REST-made operations go through it too (executeOperation runs the same plugins).
 * @param server the metrics' `server` label: gateway, or the subgraph's name
 */
export function graphqlTelemetryPlugin(telemetry: Telemetry, server: string): ApolloServerPlugin<object> {
  const { metrics } = telemetry;
  return {
    async requestDidStart({ request }) {
      const started = performance.now();
      let name = request.operationName ?? 'anonymous';
      let type = 'unknown';
      return {
        async didResolveOperation({ operationName, operation }) {
          name = operationName ?? 'anonymous';
          type = operation?.operation ?? 'unknown';
          const span = trace.getActiveSpan();
          if (span) {
            span.setAttribute('graphql.operation.name', name);
            span.setAttribute('graphql.operation.type', type);
          }
        },
        async willSendResponse({ response }) {
          const errors = response.body.kind === 'single' ? (response.body.singleResult.errors ?? []) : [];
          const codes = errors.map((error) => String(error.extensions?.code ?? 'UNKNOWN'));
          metrics.observeGraphql(server, name, type, (performance.now() - started) / 1000, codes);
        },
      };
    },
  };
}
