import { createSourceEventStream, type DocumentNode, execute, type ExecutionArgs, type ExecutionResult } from 'graphql';
import { toGraphQLError } from '../format-error.js';

/** A subscription's results. */
export interface SubscriptionStream extends AsyncIterableIterator<ExecutionResult> {
  /**
   * The cursor of the event behind the last result, when events carry one (the `events`
   * subscription's do): where the subscriber resumes (`after`) to miss nothing.
   */
  readonly after?: string;
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/**
 * `subscribe` for both live transports: graphql-js's own, except that subscribers who asked the
 * same operation (same text, operation name and variables) share one execution per event.
 *
 * graphql-js executes the selection set once per subscriber per event; with 1,000 dashboards
 * subscribed to `postCreated { id title author { name } }` that is 1,000 identical executions
 * of every post. The result depends only on the event, the operation and which posts the
 * subscriber may see (its `viewer`: the read policy's scope, public, public and one's own, or
 * all; who may see the event at all is decided per subscriber before it gets here, by
 * SubscriptionGateway) — so the first execution serves every subscriber of the same viewer.
 * Results are kept per event object (the bus hands every subscriber the same one), so they go
 * when the event does.
 */
export class SharedExecution {
  /** The text each document was parsed from: every subscriber's document is a separate parse. */
  private readonly sources = new WeakMap<DocumentNode, string>();
  private readonly perEvent = new WeakMap<object, Map<string, Promise<ExecutionResult>>>();

  /** `viewer` names what the context's reader may see: subscribers share an execution only with the same. */
  constructor(private readonly viewer: (context: unknown) => string = () => '') {}

  remember(document: DocumentNode, query: string): void {
    this.sources.set(document, query);
  }

  /** `onEnd` is called once when the stream ends, however it ends. */
  async subscribe(args: ExecutionArgs, onEnd?: () => void): Promise<SubscriptionStream | ExecutionResult> {
    const stream = await createSourceEventStream(args);
    if (!isAsyncIterable(stream)) return stream as ExecutionResult;
    const source = this.sources.get(args.document);
    const key = source === undefined ? undefined : `${this.viewer(args.contextValue)}\u0000${args.operationName ?? ''}\u0000${JSON.stringify(args.variableValues ?? {})}\u0000${source}`;
    return mapStream(stream as AsyncIterableIterator<unknown>, (event) => this.execute(args, event, key), onEnd);
  }

  private execute(args: ExecutionArgs, event: unknown, key: string | undefined): Promise<ExecutionResult> {
    const run = () => Promise.resolve(execute({ ...args, rootValue: event }));
    if (key === undefined || typeof event !== 'object' || event === null) return run();
    let results = this.perEvent.get(event);
    if (!results) this.perEvent.set(event, (results = new Map()));
    let result = results.get(key);
    if (!result) results.set(key, (result = run()));
    return result;
  }
}

/**
 * Maps each event of a source stream to its result; `return` and `throw` reach the source at
 * once. A source that fails (a subscriber too slow for its queue) ends the stream with one last
 * result carrying the error, so that every transport tells the client why it ended.
 */
function mapStream(source: AsyncIterableIterator<unknown>, map: (event: unknown) => Promise<ExecutionResult>, onEnd = () => {}): SubscriptionStream {
  let finished = false;
  const close = () => {
    if (!finished) onEnd();
    finished = true;
    return source.return?.() ?? Promise.resolve({ done: true as const, value: undefined });
  };
  const done = { done: true as const, value: undefined };
  const stream: { -readonly [K in keyof SubscriptionStream]: SubscriptionStream[K] } = {
    async next() {
      if (finished) return done;
      let event: IteratorResult<unknown>;
      try {
        event = await source.next();
      } catch (error) {
        if (finished) return done;
        await close();
        return { done: false, value: { errors: [toGraphQLError(error)] } };
      }
      if (event.done || finished) {
        if (!finished) onEnd();
        finished = true;
        return done;
      }
      const cursor = (event.value as { cursor?: unknown } | null)?.cursor;
      if (typeof cursor === 'string') stream.after = cursor;
      try {
        return { done: false, value: await map(event.value) };
      } catch (error) {
        await close();
        throw error;
      }
    },
    async return() {
      await close();
      return done;
    },
    async throw(error?: unknown) {
      await close();
      throw error;
    },
    [Symbol.asyncIterator]: () => stream,
  };
  return stream;
}
