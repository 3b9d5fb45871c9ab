import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ERROR_CODES, InvalidArgumentError, isConnectionFailure, MASKED_INTERNAL_MESSAGE, toAppError } from '../errors.ts';
import type { Logger } from '../logger.ts';

/**
 * The GraphQL mapping of the error vocabulary, applied once where a subgraph formats its response (HTTP server and
 * in-process data source alike). Service errors keep their message and gain `extensions.code` (plus field violations);
 * anything unexpected is logged, each with its stack, and masked. The database unreachable is logged once per incident by
 * the database's own log (lib/telemetry/telemetry.ts), not here once per failed field: here at debug level only.
 */
export function createSubgraphErrorFormatter(logger: Logger) {
  return function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
    const original = error instanceof GraphQLError ? error.originalError : error;
    if (original instanceof GraphQLError || original === undefined || original === null) {
      // Parse, validation and coercion errors: already client errors with their own codes.
      return formatted;
    }
    const appError = toAppError(original);
    const mapping = ERROR_CODES[appError.code];
    const extensions: Record<string, unknown> = { ...appError.details, code: mapping.graphql };
    if (appError instanceof InvalidArgumentError && appError.violations.length > 0) {
      extensions.fieldViolations = appError.violations;
    }
    if (appError.code === 'UNAVAILABLE' && isConnectionFailure(original)) {
      logger.debug({ err: original, path: formatted.path }, 'resolver error: the database is unreachable');
    } else if (appError.code === 'INTERNAL' || appError.code === 'UNAVAILABLE') {
      logger.error({ err: original, path: formatted.path }, 'resolver error');
    }
    return {
      message: appError.code === 'INTERNAL' ? MASKED_INTERNAL_MESSAGE : appError.message,
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions,
    };
  };
}
