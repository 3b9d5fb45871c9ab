import type { ApolloServerPlugin } from '@apollo/server';

/** graphql-js's suggestion suffix: ` Did you mean "name"?`, ` Did you mean the enum value "MALE"?`, `… or "c"?`. */
const SUGGESTION = / ?Did you mean .+\?$/;

/** The message without its "Did you mean …?" suffix. */
export function withoutSuggestion(message: string): string {
  return message.replace(SUGGESTION, '');
}

/**
 * Removes "Did you mean …?" from every error of a response. Apollo Server's hideSchemaDetailsFromClientErrors does it
 * for validation errors only; the errors of coercing variables (`Field "nam" is not defined by type
 * "CreateUserExampleInput". Did you mean "name"?`) would still spell out the schema that disabled introspection hides.
 */
export function suggestionMaskingPlugin(): ApolloServerPlugin<object> {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== 'single' || !response.body.singleResult.errors) return;
          const result = response.body.singleResult;
          result.errors = result.errors!.map((error) =>
            SUGGESTION.test(error.message) ? { ...error, message: withoutSuggestion(error.message) } : error,
          );
        },
      };
    },
  };
}
