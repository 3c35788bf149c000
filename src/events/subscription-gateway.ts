import { Inject, Injectable } from '@nestjs/common';
import { Args, Int } from '@nestjs/graphql';
import type { PubSubEngine } from 'graphql-subscriptions';
import type { Actor } from '../common/actor.js';
import { type EventAudience, ReadPolicy } from '../auth/read-policy.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { Loaders } from '../common/graphql/loaders.js';
import { subscriberTooSlow } from '../common/graphql/subscriber-too-slow-error.js';
import { AppConfig } from '../config/app-config.js';
import { MetricsService } from '../metrics/metrics.service.js';
import type { BlogEventName, BlogEvents } from './blog-events.js';
import { boundedIterator } from './bounded-iterator.js';
import { LOCAL_EVENTS, type LoggedEvent } from './event-relay.js';

type Iterator<T> = AsyncIterableIterator<T>;

/** A subscription's optional filter argument. */
export const optionalId = (name: string, description: string) => Args(name, { type: () => Int, nullable: true, description });

/** `undefined`/`null` filters match everything. */
export const matches = (wanted: number | null | undefined, actual: number) => wanted === undefined || wanted === null || wanted === actual;

/**
 * A subscription that follows a resource's visibility (CONTRACT §7): it also fires on `name` (a
 * post became public, or stopped being public), for the subscribers who cannot see the audience
 * `seenBefore` gives for the event's payload (those who saw the resource before it was public
 * already had its creation, and still have its deletion to come).
 */
export interface VisibilityChange {
  name: BlogEventName;
  seenBefore: (payload: object) => EventAudience;
}

/**
 * Where subscriptions meet the events this instance's relay publishes. Each subscriber's stream
 * is the stream of one event name (and its visibility change, above), kept to the events that
 * match the subscriber's arguments and whose audience the read policy lets the subscriber see.
 *
 * The subscriber's selection set is then resolved like a query, through DataLoaders. All
 * subscribers of one event on this instance share that event's loaders (the bus hands each
 * of them the same payload object), so 1,000 subscribers asking for `author { name }` cost
 * one SQL statement, not 1,000. Sharing is sound because what a subscriber may see is decided
 * by the read policy before the event reaches them (the event's audience), and the loaders
 * themselves answer the same for every reader: item loaders load rows whatever their state and
 * each resolver applies ReadPolicy.canSeePost for its own reader (`post`, `Comment.post`,
 * `Post.revisions`), while list loaders (`User.posts`) read public posts only.
 */
@Injectable()
export class SubscriptionGateway {
  private readonly eventLoaders = new WeakMap<object, Loaders>();

  constructor(
    @Inject(LOCAL_EVENTS) private readonly pubSub: PubSubEngine,
    private readonly policy: ReadPolicy,
    private readonly metrics: MetricsService,
    private readonly config: AppConfig,
  ) {}

  listen<K extends BlogEventName>(
    name: K,
    context: GraphQLContext,
    matches: (payload: BlogEvents[K]) => boolean,
    change?: VisibilityChange,
  ): Iterator<BlogEvents[K]> {
    const limit = this.config.subscriptionsMaxQueue;
    // The bus's iterator queues whatever is published until it is read: a client that reads
    // slowly (or not at all) would hold every event. At most `limit` are kept for it.
    const source = boundedIterator(this.pubSub.asyncIterableIterator<LoggedEvent>(change ? [name, change.name] : name), {
      limit,
      keep: (event) => this.reaches(name, event, context.actor, change) && matches(event.payload as BlogEvents[K]),
      overflow: () => {
        this.metrics.subscribersTooSlow.labels('queue').inc();
        return subscriberTooSlow(
          `More than ${limit} ${name} events were waiting for this subscriber (SUBSCRIPTIONS_MAX_QUEUE): it was ended after the events kept; subscribe again (events(after:) replays what was missed)`,
        );
      },
    });
    const delivered = this.metrics.subscriptionEvents.labels(name);
    const next = async (): Promise<IteratorResult<BlogEvents[K]>> => {
      const result = await source.next();
      if (result.done) return result;
      const payload = result.value.payload as BlogEvents[K];
      context.loaders = this.loadersFor(payload);
      delivered.inc();
      return { done: false, value: payload };
    };
    // A plain iterator rather than an async generator: `return()` must reach the bus's iterator
    // at once (ending its pending `next()`), or an unsubscribed client would linger until the next event.
    const iterator: Iterator<BlogEvents[K]> = {
      next,
      return: () => source.return!() as Promise<IteratorResult<BlogEvents[K]>>,
      throw: (error?: unknown) => source.throw!(error) as Promise<IteratorResult<BlogEvents[K]>>,
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  }

  /** Whether the subscription `name` fires for `actor` on this event (see VisibilityChange). */
  private reaches(name: string, event: LoggedEvent, actor: Actor | null, change: VisibilityChange | undefined): boolean {
    if (event.name === name) return this.policy.canSeeAudience(actor, event.audience);
    return !!change && event.audience.audience === 'public' && !this.policy.canSeeAudience(actor, change.seenBefore(event.payload));
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
