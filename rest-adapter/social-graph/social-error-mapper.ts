import type { GraphQLFormattedError } from 'graphql';
import { errorCodeFromGraphql } from '../../lib/errors.ts';
import { SOCIAL_ERROR_REASONS, socialReasonOf, type SocialMethod } from '../../contracts/social-graph.ts';
import type { GraphErrorReply, GraphErrors } from './graph-errors.ts';

/**
 * The one mapping of the social services' errors (GraphQL errors with `extensions.reason`) onto the Graph error envelope
 * of the REST paths (Areas B and C).
 *
 * A GraphQL response may carry several errors (one per failing field); the platform answers a request with one error, so
 * the most fundamental is chosen: a token problem before a permission problem before an unknown object, and so on, in the
 * order of SOCIAL_ERROR_REASONS. Errors without a reason are the gateway's or an internal failure.
 */

function rank(error: GraphQLFormattedError): number {
  const reason = socialReasonOf(error.extensions);
  return reason === undefined ? SOCIAL_ERROR_REASONS.length : SOCIAL_ERROR_REASONS.indexOf(reason);
}

export function mapSocialErrors(
  errors: readonly GraphQLFormattedError[],
  graphErrors: GraphErrors,
  fallbackMethod: SocialMethod,
): GraphErrorReply {
  const error = [...errors].sort((a, b) => rank(a) - rank(b))[0]!;
  const extensions = error.extensions ?? {};
  const text = (name: string) => {
    const value = extensions[name];
    return typeof value === 'string' ? value : '';
  };
  switch (socialReasonOf(extensions)) {
    case 'NO_TOKEN':
      return graphErrors.noToken();
    case 'TOKEN_UNPARSABLE':
      return graphErrors.unparsableToken();
    case 'TOKEN_EXPIRED':
      return graphErrors.expiredToken(new Date(text('expiredAt')), new Date(text('now')));
    case 'TOKEN_REVOKED':
      return graphErrors.invalidatedToken(467);
    case 'WRONG_HOST':
      return graphErrors.wrongHost();
    case 'ME_WITHOUT_USER':
      return graphErrors.meWithoutUser();
    case 'APP_TOKEN_REQUIRED':
      return graphErrors.appTokenRequired();
    case 'CALLBACK_VERIFICATION_FAILED':
      return graphErrors.callbackVerificationFailed(error.message);
    case 'MISSING_PERMISSION':
      return graphErrors.missingPermission(text('permission'));
    case 'NOT_ALLOWED':
      return graphErrors.appPermission();
    case 'UNKNOWN_OBJECT': {
      const method = text('method');
      return graphErrors.unsupportedOperation(
        method === 'get' || method === 'post' || method === 'delete' ? method : fallbackMethod,
        text('id'),
      );
    }
    case 'UNKNOWN_FIELD':
      return graphErrors.unknownField(text('field'), text('nodeType'));
    case 'MISSING_PARAMETER':
      return graphErrors.missingParameter(text('parameter'));
    case 'INVALID_PARAMETER':
      return graphErrors.invalidParameter('Invalid parameter', error.message);
    case 'CURSOR_TOO_FAR':
      return graphErrors.cursorTooFar();
    case 'RATE_LIMITED':
      switch (text('scope')) {
        case 'user':
          return graphErrors.userRateLimit();
        case 'page':
          return graphErrors.pageRateLimit();
        case 'custom':
          return graphErrors.customRateLimit();
        case 'business':
          return graphErrors.businessRateLimit('Social');
        default:
          return graphErrors.appRateLimit();
      }
    case 'PUBLISHING_ERROR':
      return graphErrors.publishingError(
        Number(extensions.graphCode),
        Number(extensions.subcode),
        error.message,
        text('userTitle'),
        text('userMessage'),
      );
    case undefined:
      // A variable the schema refuses (a value of the wrong type in a parameter) is the request's fault.
      if (extensions.code === 'BAD_USER_INPUT' || extensions.code === 'GRAPHQL_VALIDATION_FAILED') {
        return graphErrors.invalidParameter('Invalid parameter', error.message);
      }
      return errorCodeFromGraphql(extensions.code) === 'UNAVAILABLE' ? graphErrors.unexpectedError(503) : graphErrors.unknownError();
  }
}
