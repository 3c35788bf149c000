import { Global, Module } from '@nestjs/common';
import { PubSub } from 'graphql-subscriptions';
import { EventPublisher, PUB_SUB } from './event-publisher.js';

/** The event bus: in-process for now. */
@Global()
@Module({
  providers: [{ provide: PUB_SUB, useFactory: () => new PubSub() }, EventPublisher],
  exports: [PUB_SUB, EventPublisher],
})
export class EventsModule {}
