import { createSourceEventStream, execute, GraphQLError, type DocumentNode, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { isAsyncIterable } from './map-async-iterator.ts';
import { rootResponseKey } from './root-field.ts';

/**
 * A subscription executed as graphql-js's `subscribe` does — the root field's `subscribe` resolver makes the source
 * stream, and each event runs the operation with the event as root value — with one difference: every event gets a
 * context of its own, made by the subgraph's factory from the subscriber's credentials, as a query would. So each
 * event is read under the rules a query is read under at that moment (the token is read again: an expired or revoked
 * one ends the stream; DataLoaders start empty: nothing cached from an earlier event is shown).
 *
 * `admit`, given the event and its context, decides whether the subscriber sees the event at all (false: skipped, as a
 * query would not have listed it); an error it throws ends the stream with that error at the root field.
 *
 * The returned iterator's `return()` ends the source stream at once, even while it waits for an event (an async
 * generator would wait for the pending event first and keep the subscription until one came).
 */
export interface PerEventSubscription<TContext> {
  schema: GraphQLSchema;
  document: DocumentNode;
  variableValues?: Readonly<Record<string, unknown>> | undefined;
  operationName?: string | null | undefined;
  createContext(): TContext;
  admit?(event: unknown, context: TContext): Promise<boolean> | boolean;
}

export async function subscribePerEvent<TContext>(
  subscription: PerEventSubscription<TContext>,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const { schema, document, variableValues, operationName } = subscription;
  const source = await createSourceEventStream({
    schema,
    document,
    contextValue: subscription.createContext(),
    ...(variableValues ? { variableValues } : {}),
    ...(operationName ? { operationName } : {}),
  });
  if (!isAsyncIterable(source)) return source;
  const events = source[Symbol.asyncIterator]();
  const rootKey = rootResponseKey(document, operationName);
  let finished = false;

  const finish = async (): Promise<IteratorResult<ExecutionResult>> => {
    if (!finished) {
      finished = true;
      await events.return?.();
    }
    return { value: undefined, done: true };
  };

  const iterator: AsyncIterableIterator<ExecutionResult> = {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      while (!finished) {
        let step: IteratorResult<unknown>;
        try {
          step = await events.next();
        } catch (error) {
          await finish();
          return { value: { data: null, errors: [rootError(error, rootKey)] }, done: false };
        }
        if (step.done || finished) return finish();
        const contextValue = subscription.createContext();
        try {
          if (subscription.admit && !(await subscription.admit(step.value, contextValue))) continue;
        } catch (error) {
          await finish();
          return { value: { data: null, errors: [rootError(error, rootKey)] }, done: false };
        }
        const result = await execute({
          schema,
          document,
          rootValue: step.value,
          contextValue,
          ...(variableValues ? { variableValues } : {}),
          ...(operationName ? { operationName } : {}),
        });
        return { value: result, done: false };
      }
      return { value: undefined, done: true };
    },
    return: finish,
    async throw(error: unknown) {
      await finish();
      throw error;
    },
  };
  return iterator;
}

/** An error that ends the stream, at the root field as graphql-js places a resolver's error. */
function rootError(error: unknown, rootKey: string | undefined): GraphQLError {
  const original = error instanceof Error ? error : new Error(String(error));
  if (original instanceof GraphQLError && original.path) return original;
  return new GraphQLError(original.message, {
    ...(rootKey !== undefined ? { path: [rootKey] } : {}),
    originalError: original instanceof GraphQLError && original.originalError ? original.originalError : original,
    ...(original instanceof GraphQLError ? { extensions: original.extensions } : {}),
  });
}
