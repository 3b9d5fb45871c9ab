/**
 * Whether an outcome is a stream (a subscription's results) rather than one result: the one test every live path makes
 * of what subscribe() returned.
 */
export function isAsyncIterable<V>(value: V): value is Extract<V, AsyncIterable<unknown>> {
  return typeof (value as Partial<AsyncIterable<unknown>> | null | undefined)?.[Symbol.asyncIterator] === 'function';
}

/**
 * Maps each value of an async iterator, forwarding `return()` to the source at once — also while a `next()` is waiting
 * for the source (an async generator would queue the return behind the pending value, and hold a subscription open until
 * its next event came). `map` returning undefined skips the value.
 */
export function mapAsyncIterator<T, U>(
  source: AsyncIterator<T>,
  map: (value: T) => U | undefined | Promise<U | undefined>,
  onEnd?: () => void,
): AsyncIterableIterator<U> {
  let ended = false;
  const end = async (): Promise<IteratorResult<U>> => {
    if (!ended) {
      ended = true;
      onEnd?.();
      await source.return?.();
    }
    return { value: undefined, done: true };
  };
  return {
    [Symbol.asyncIterator]() {
      return this;
    },
    async next() {
      while (!ended) {
        let step: IteratorResult<T>;
        try {
          step = await source.next();
        } catch (error) {
          await end();
          throw error;
        }
        if (step.done) {
          if (!ended) {
            ended = true;
            onEnd?.();
          }
          break;
        }
        if (ended) break;
        const mapped = await map(step.value);
        if (mapped !== undefined) return { value: mapped, done: false };
      }
      return { value: undefined, done: true };
    },
    return: end,
    async throw(error: unknown) {
      await end();
      throw error;
    },
  };
}
