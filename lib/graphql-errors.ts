import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { ERROR_CODES, InvalidArgumentError, isAppError, MASKED_INTERNAL_MESSAGE } from './errors.ts';
import type { Logger } from './logger.ts';

/**
 * The GraphQL mapping of the error vocabulary, applied once where a subgraph formats its response (HTTP server and
 * in-process data source alike). Service errors keep their message and gain `extensions.code` (plus field violations);
 * anything unexpected is logged and masked.
 */
export function createSubgraphErrorFormatter(logger: Logger) {
  return function formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
    const original = error instanceof GraphQLError ? error.originalError : error;
    if (isAppError(original)) {
      const mapping = ERROR_CODES[original.code];
      const extensions: Record<string, unknown> = { ...original.details, code: mapping.graphql };
      if (original instanceof InvalidArgumentError && original.violations.length > 0) {
        extensions.fieldViolations = original.violations;
      }
      if (original.code === 'INTERNAL' || original.code === 'UNAVAILABLE') {
        logger.error({ err: original }, 'service error');
      }
      return { ...formatted, message: original.code === 'INTERNAL' ? MASKED_INTERNAL_MESSAGE : original.message, extensions };
    }
    if (original instanceof GraphQLError || original === undefined || original === null) {
      // Parse, validation and coercion errors: already client errors with their own codes.
      return formatted;
    }
    logger.error({ err: original, path: formatted.path }, 'unexpected resolver error');
    return {
      message: MASKED_INTERNAL_MESSAGE,
      ...(formatted.locations ? { locations: formatted.locations } : {}),
      ...(formatted.path ? { path: formatted.path } : {}),
      extensions: { code: ERROR_CODES.INTERNAL.graphql },
    };
  };
}
