import { Inject, Injectable } from '@nestjs/common';
import { Args, Int } from '@nestjs/graphql';
import type { PubSubEngine } from 'graphql-subscriptions';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { Loaders } from '../common/graphql/loaders.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { BlogEventName, BlogEvents } from './blog-events.js';
import { LOCAL_EVENTS } from './event-relay.js';

type Iterator<T> = AsyncIterableIterator<T>;

/** A subscription's optional filter argument. */
export const optionalId = (name: string, description: string) => Args(name, { type: () => Int, nullable: true, description });

/** `undefined`/`null` filters match everything. */
export const matches = (wanted: number | null | undefined, actual: number) => wanted === undefined || wanted === null || wanted === actual;

/**
 * Where subscriptions meet the events this instance's relay publishes. Each subscriber's stream
 * is the stream of one event name, kept to the events that match the subscriber's arguments and that the
 * authorization policy lets the subscriber see.
 *
 * The subscriber's selection set is then resolved like a query, through DataLoaders. All
 * subscribers of one event on this instance share that event's loaders (the bus hands each
 * of them the same payload object), so 1,000 subscribers asking for `author { name }` cost
 * one SQL statement, not 1,000. Sharing is sound because what a subscriber may see is decided
 * by the policy before the event reaches them, and every resource is public.
 */
@Injectable()
export class SubscriptionGateway {
  private readonly eventLoaders = new WeakMap<object, Loaders>();

  constructor(
    @Inject(LOCAL_EVENTS) private readonly pubSub: PubSubEngine,
    private readonly policy: AuthorizationPolicy,
    private readonly metrics: MetricsService,
  ) {}

  listen<K extends BlogEventName>(
    name: K,
    context: GraphQLContext,
    matches: (payload: BlogEvents[K]) => boolean,
  ): Iterator<BlogEvents[K]> {
    const source = this.pubSub.asyncIterableIterator<BlogEvents[K]>(name) as Iterator<BlogEvents[K]>;
    const delivered = this.metrics.subscriptionEvents.labels(name);
    const next = async (): Promise<IteratorResult<BlogEvents[K]>> => {
      for (;;) {
        const result = await source.next();
        if (result.done) return result;
        const payload = result.value;
        if (!matches(payload) || !this.policy.canSee(context.actor, payload)) continue;
        context.loaders = this.loadersFor(payload);
        delivered.inc();
        return result;
      }
    };
    // A plain iterator rather than an async generator: `return()` must reach the bus's iterator
    // at once (ending its pending `next()`), or an unsubscribed client would linger until the next event.
    const iterator: Iterator<BlogEvents[K]> = {
      next,
      return: () => source.return?.() ?? Promise.resolve({ done: true, value: undefined }),
      throw: (error?: unknown) => source.throw?.(error) ?? Promise.reject(error),
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  private loadersFor(payload: object): Loaders {
    let loaders = this.eventLoaders.get(payload);
    if (!loaders) {
      loaders = new Loaders();
      this.eventLoaders.set(payload, loaders);
    }
    return loaders;
  }
}
