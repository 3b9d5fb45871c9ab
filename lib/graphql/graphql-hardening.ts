import type { ApolloServerPlugin } from '@apollo/server';
import type { GraphQLFormattedError, ValidationRule } from 'graphql';
import type { RequestHandler } from 'express';
import { loadPersistedOperations, persistedOperationsMiddleware, type PersistedOperations } from './graphql-persisted-operations.ts';
import type { Config } from '../config.ts';
import { operationLimitsCheck, operationLimitsPlugin, tokenLimitMiddleware, type ResolvedOperation } from './graphql-operation-limits.ts';
import { knownOperationTypesRule, labelClientErrors, operationResolutionPlugin } from './graphql-request-errors.ts';
import { suggestionMaskingPlugin } from './graphql-suggestion-masking.ts';
import { getJsonDepthMiddleware } from './graphql-get-json-depth.ts';
import { createTrustedCallerCheck, trustedOperation, trustedRequest } from '../http/trusted-caller.ts';

export type { ResolvedOperation };

/**
 * The GraphQL hardening of one Apollo Server, from configuration, in the pieces its server wires in: Apollo plugins,
 * Express middleware to run between the body parsers and Apollo Server, and Apollo Server options.
 *
 * - The gateway gets every limit and, when configured, the persisted-operations safelist.
 * - A subgraph server gets the limits only when GRAPHQL_TRUSTED_CALLER_SECRET is set: its legitimate caller is the
 *   gateway, whose query-plan fetches mirror operations that passed the gateway's limits — or trusted ones, deeper than
 *   any limit — and only the secret (which the gateway sends) tells that caller apart from someone calling directly.
 * Both hide "Did you mean …?" suggestions when GRAPHQL_FIELD_SUGGESTIONS is off (production), and both answer a client's
 * request-level mistakes with HTTP 400 (lib/graphql/graphql-request-errors.ts).
 */
export interface GraphqlHardening {
  plugins: ApolloServerPlugin<object>[];
  /** Between the body parsers (JSON, multipart) and Apollo Server's middleware, in this order. */
  middleware: RequestHandler[];
  /** Apollo Server's own switch for suggestions in validation errors. */
  hideSchemaDetailsFromClientErrors: boolean;
  /** Validation rules beyond graphql-js's. */
  validationRules: ValidationRule[];
  /** Apollo Server's formatError, after the server's own formatter (if any). */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError;
  /**
   * What the plugins check of a resolved operation before it runs (the limits, unless the caller is trusted), for a path
   * that runs the operation without the plugins (gateway/stand-ins/operation-fast-lane.ts); throws the plugins' refusal.
   */
  checkResolvedOperation(operation: ResolvedOperation): void;
  /** The safelist in force (gateway only). */
  persistedOperations: PersistedOperations | undefined;
}

/**
 * Builds the hardening of the gateway or of a subgraph server. Reads the persisted-operations manifest (gateway only), so
 * a missing or malformed manifest stops the start-up with a ConfigError naming GRAPHQL_PERSISTED_OPERATIONS_MANIFEST.
 */
export function createGraphqlHardening(config: Config['graphql'], role: 'gateway' | 'subgraph'): GraphqlHardening {
  const check = createTrustedCallerCheck(config.trustedCallerSecret);
  const limited = role === 'gateway' || config.trustedCallerSecret !== undefined;
  const persisted = role === 'gateway' ? loadPersistedOperations(config.persistedOperations) : undefined;
  const plugins: ApolloServerPlugin<object>[] = [operationResolutionPlugin()];
  // A GET's JSON parameters meet the nesting bound the body parsers keep, before anything parses them.
  const middleware: RequestHandler[] = [getJsonDepthMiddleware(config.maxJsonDepth)];
  // The safelist goes next: it turns listed ids into text, and refuses unlisted operations before anything reads them.
  if (persisted) middleware.push(persistedOperationsMiddleware(persisted, trustedRequest(check)));
  const checkLimits = limited ? operationLimitsCheck(config.limits, trustedOperation(check)) : undefined;
  if (checkLimits) {
    middleware.push(tokenLimitMiddleware(config.limits.maxTokens, trustedRequest(check)));
    plugins.push(operationLimitsPlugin(checkLimits));
  }
  if (!config.fieldSuggestions) plugins.push(suggestionMaskingPlugin());
  return {
    plugins,
    middleware,
    hideSchemaDetailsFromClientErrors: !config.fieldSuggestions,
    validationRules: [knownOperationTypesRule],
    formatError: labelClientErrors,
    checkResolvedOperation: checkLimits ?? (() => undefined),
    persistedOperations: persisted,
  };
}
