export interface BoundedIteratorOptions<T> {
  /** Values kept for the consumer at most; one more ends the iterator with `overflow()`. */
  limit: number;
  /** Which values the consumer wants at all (the others are not kept). */
  keep?: (value: T) => boolean;
  /** The error the consumer gets, after the values kept, once the limit was passed. */
  overflow: () => Error;
}

/**
 * A push source (a PubSub iterator, whose own queue grows without bound while nobody pulls)
 * read as fast as it yields, keeping at most `limit` values for a consumer that reads slower.
 *
 * Past the limit the source is returned (unsubscribed) at once and nothing more is kept; the
 * consumer still gets the values kept, then `overflow()` is thrown at it, and the iterator is
 * done. So a stalled consumer holds at most `limit` values, and a consumer that falls behind
 * learns that it missed events rather than silently skipping them.
 *
 * The source is started by the consumer's first `next()`, as a PubSub iterator would be.
 */
export function boundedIterator<T>(source: AsyncIterator<T>, options: BoundedIteratorOptions<T>): AsyncIterableIterator<T> {
  const kept: T[] = [];
  let waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  let started = false;
  /** The source is done, failed, overflowed or was returned: nothing more will be kept. */
  let ended = false;
  let failure: unknown;
  const done = (): IteratorResult<T> => ({ done: true, value: undefined });

  const stop = () => {
    if (ended) return;
    ended = true;
    void Promise.resolve(source.return?.()).catch(() => undefined);
  };

  const pump = async () => {
    try {
      while (!ended) {
        const result = await source.next();
        if (result.done || ended) break;
        if (options.keep && !options.keep(result.value)) continue;
        if (waiting) {
          const consumer = waiting;
          waiting = undefined;
          consumer.resolve({ done: false, value: result.value });
        } else if (kept.length < options.limit) {
          kept.push(result.value);
        } else {
          failure = options.overflow();
          break;
        }
      }
    } catch (error) {
      failure = error;
    }
    stop();
    // A consumer waits only while nothing is kept: it gets the failure now, or the end.
    const consumer = waiting;
    waiting = undefined;
    if (consumer) settle(consumer);
  };

  const settle = (consumer: NonNullable<typeof waiting>) => {
    if (failure === undefined) return consumer.resolve(done());
    const error = failure;
    failure = undefined;
    consumer.reject(error);
  };

  const iterator: AsyncIterableIterator<T> = {
    next() {
      if (!started) {
        started = true;
        void pump();
      }
      if (kept.length > 0) return Promise.resolve({ done: false, value: kept.shift() as T });
      return new Promise((resolve, reject) => {
        if (ended) settle({ resolve, reject });
        else waiting = { resolve, reject };
      });
    },
    return() {
      kept.length = 0;
      failure = undefined;
      stop();
      const consumer = waiting;
      waiting = undefined;
      consumer?.resolve(done());
      return Promise.resolve(done());
    },
    throw(error?: unknown) {
      void iterator.return!();
      return Promise.reject(error);
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
