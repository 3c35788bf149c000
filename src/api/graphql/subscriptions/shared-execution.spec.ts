import { GraphQLInt, GraphQLObjectType, GraphQLSchema, GraphQLString, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { subscriberTooSlow } from '../../../common/graphql/subscriber-too-slow-error.js';
import { SharedExecution, type SubscriptionStream } from './shared-execution.js';

/** A bus: every subscriber's iterator yields the same event objects, as the real buses do. */
function bus() {
  const queues = new Set<{ push: (event: object) => void }>();
  return {
    publish: (event: object) => queues.forEach((queue) => queue.push(event)),
    iterator(): AsyncIterableIterator<object> {
      const pending: object[] = [];
      let wake: (() => void) | undefined;
      const queue = { push: (event: object) => (pending.push(event), wake?.()) };
      queues.add(queue);
      const iterator: AsyncIterableIterator<object> = {
        async next() {
          while (pending.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          return { done: false, value: pending.shift()! };
        },
        async return() {
          queues.delete(queue);
          return { done: true, value: undefined };
        },
        [Symbol.asyncIterator]: () => iterator,
      };
      return iterator;
    },
  };
}

function setup() {
  const events = bus();
  const calls = { title: 0 };
  const Post = new GraphQLObjectType({
    name: 'Post',
    fields: {
      id: { type: GraphQLInt },
      title: {
        type: GraphQLString,
        args: { suffix: { type: GraphQLString } },
        resolve: (post: { title: string }, args: { suffix?: string }, context: { viewer?: string } | undefined) =>
          (calls.title++, post.title + (args.suffix ?? '') + (context?.viewer ? ` for ${context.viewer}` : '')),
      },
    },
  });
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: { postCreated: { type: Post, subscribe: () => events.iterator(), resolve: (post: object) => post } },
    }),
  });
  const shared = new SharedExecution((context) => (context as { viewer?: string } | undefined)?.viewer ?? '');
  const subscribe = async (query: string, variableValues: Record<string, unknown> = {}, viewer?: string) => {
    const document = parse(query);
    shared.remember(document, query);
    return (await shared.subscribe({ schema, document, variableValues, contextValue: { viewer } })) as AsyncIterableIterator<{ data?: unknown }>;
  };
  return { events, calls, subscribe };
}

const QUERY = 'subscription($s: String) { postCreated { id title(suffix: $s) } }';

/** A subscription whose source yields `events`, then fails with `error`; counts how its stream ended. */
async function failingAfter(events: object[], error: Error) {
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: 'Query', fields: { ok: { type: GraphQLInt } } }),
    subscription: new GraphQLObjectType({
      name: 'Subscription',
      fields: {
        event: {
          type: new GraphQLObjectType({ name: 'Event', fields: { cursor: { type: GraphQLString } } }),
          subscribe: async function* () {
            yield* events;
            throw error;
          },
          resolve: (event: object) => event,
        },
      },
    }),
  });
  const ended = { count: 0 };
  const stream = (await new SharedExecution().subscribe({ schema, document: parse('subscription { event { cursor } }') }, () => ended.count++)) as SubscriptionStream;
  return { stream, ended };
}

describe('SharedExecution (one execution per event for subscribers asking the same thing)', () => {
  it('executes once per event for identical subscriptions, and each subscriber gets the result', async () => {
    const { events, calls, subscribe } = setup();
    const streams = await Promise.all(Array.from({ length: 5 }, () => subscribe(QUERY)));
    const first = { id: 1, title: 'One' };
    events.publish(first);
    const results = await Promise.all(streams.map((stream) => stream.next()));
    expect(results.map((result) => result.value)).toEqual(Array(5).fill({ data: { postCreated: { id: 1, title: 'One' } } }));
    expect(calls.title).toBe(1);
    events.publish({ id: 2, title: 'Two' });
    await Promise.all(streams.map((stream) => stream.next()));
    expect(calls.title).toBe(2);
  });

  it('executes separately for other variables or another document', async () => {
    const { events, calls, subscribe } = setup();
    const streams = [await subscribe(QUERY, { s: '!' }), await subscribe(QUERY, { s: '?' }), await subscribe('subscription { postCreated { title } }')];
    events.publish({ id: 1, title: 'One' });
    const results = await Promise.all(streams.map((stream) => stream.next()));
    expect(results.map((result) => result.value)).toEqual([
      { data: { postCreated: { id: 1, title: 'One!' } } },
      { data: { postCreated: { id: 1, title: 'One?' } } },
      { data: { postCreated: { title: 'One' } } },
    ]);
    expect(calls.title).toBe(3);
  });

  it('executes separately for subscribers who see different posts (their viewer), once per viewer', async () => {
    const { events, calls, subscribe } = setup();
    const streams = [await subscribe(QUERY, {}, 'public'), await subscribe(QUERY, {}, 'own:2'), await subscribe(QUERY, {}, 'public')];
    events.publish({ id: 1, title: 'One' });
    const results = await Promise.all(streams.map((stream) => stream.next()));
    expect(results.map((result) => result.value)).toEqual([
      { data: { postCreated: { id: 1, title: 'One for public' } } },
      { data: { postCreated: { id: 1, title: 'One for own:2' } } },
      { data: { postCreated: { id: 1, title: 'One for public' } } },
    ]);
    expect(calls.title).toBe(2);
  });

  it('a source that fails ends the stream with one last result carrying the error, and `after` names the last event', async () => {
    const { stream, ended } = await failingAfter([{ cursor: 'c1' }, { cursor: 'c2' }], subscriberTooSlow('too slow'));
    expect(stream.after).toBeUndefined();
    expect(await stream.next()).toEqual({ done: false, value: { data: { event: { cursor: 'c1' } } } });
    expect(await stream.next()).toEqual({ done: false, value: { data: { event: { cursor: 'c2' } } } });
    expect(stream.after).toBe('c2');
    const last = await stream.next();
    expect(last.done).toBe(false);
    const errors = (last.value as { errors: { message: string; extensions: unknown }[] }).errors;
    expect(errors.map((error) => [error.message, error.extensions])).toEqual([['too slow', { code: 'SUBSCRIBER_TOO_SLOW' }]]);
    expect(await stream.next()).toEqual({ done: true, value: undefined });
    expect(ended.count).toBe(1);
  });

  it('passes return() through to the source at once', async () => {
    const { events, subscribe } = setup();
    const stream = await subscribe(QUERY);
    const pending = stream.next();
    await stream.return!();
    events.publish({ id: 1, title: 'One' });
    await expect(Promise.race([pending.then(() => 'delivered'), new Promise((resolve) => setTimeout(() => resolve('quiet'), 20))])).resolves.toBe('quiet');
  });
});
