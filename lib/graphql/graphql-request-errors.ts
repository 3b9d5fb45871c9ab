import type { ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, Kind, type ASTVisitor, type DocumentNode, type GraphQLFormattedError, type ValidationContext } from 'graphql';

/**
 * Request-level mistakes of a GraphQL client are the client's: HTTP 400 and a code that says what went wrong, as Apollo
 * Server answers them for a schema it executes itself and as the GraphQL-over-HTTP spec asks. Behind @apollo/gateway
 * three of them otherwise surface as HTTP 500 with INTERNAL_SERVER_ERROR or INVALID_GRAPHQL, because the gateway's
 * executor, not Apollo Server, is the first to notice them:
 *
 * - an `operationName` the document does not define, or a document of several operations sent without one
 *   (Apollo Server's OPERATION_RESOLUTION_FAILURE);
 * - an operation whose root type the schema does not have (`subscription { … }` here): a validation error, as graphql-js
 *   17's KnownOperationTypesRule makes it;
 * - an error Apollo Server answers with a 4xx status but no code (`Unsupported persisted query version`), which its
 *   formatter would otherwise label INTERNAL_SERVER_ERROR.
 */

/** Validation rule: every operation's root type exists in the schema (graphql-js 17's KnownOperationTypesRule). */
export function knownOperationTypesRule(context: ValidationContext): ASTVisitor {
  const schema = context.getSchema();
  return {
    OperationDefinition(node) {
      if (!schema.getRootType(node.operation)) {
        context.reportError(new GraphQLError(`The ${node.operation} operation is not supported by the schema.`, { nodes: node }));
      }
      return false;
    },
  };
}

/** Why no operation of `document` can run for this `operationName` (graphql-js's own wording). */
function unresolvedOperationMessage(document: DocumentNode | undefined, operationName: string | undefined | null): string {
  if (operationName) return `Unknown operation named "${operationName}".`;
  const operations = document?.definitions.filter((definition) => definition.kind === Kind.OPERATION_DEFINITION).length ?? 0;
  return operations === 0 ? 'Must provide an operation.' : 'Must provide operation name if query contains multiple operations.';
}

/**
 * Refuses a request whose operation could not be picked out of its document, before the gateway's executor trips over it:
 * HTTP 400, `OPERATION_RESOLUTION_FAILURE`.
 */
export function operationResolutionPlugin(): ApolloServerPlugin<object> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation(requestContext) {
          if (requestContext.operation) return;
          throw new GraphQLError(unresolvedOperationMessage(requestContext.document, requestContext.request.operationName), {
            extensions: { code: 'OPERATION_RESOLUTION_FAILURE', http: { status: 400 } },
          });
        },
      };
    },
  };
}

/**
 * Apollo Server's formatError step for errors it raised itself with a 4xx status and no code: `BAD_REQUEST` instead of the
 * INTERNAL_SERVER_ERROR it would fill in (a client's mistake is never labelled as ours). Anything else passes unchanged.
 */
export function labelClientErrors(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
  if (formatted.extensions?.code !== 'INTERNAL_SERVER_ERROR' || !(error instanceof GraphQLError)) return formatted;
  const status = (error.extensions?.http as { status?: unknown } | undefined)?.status;
  if (typeof status !== 'number' || status < 400 || status >= 500) return formatted;
  return { ...formatted, extensions: { ...formatted.extensions, code: 'BAD_REQUEST' } };
}
