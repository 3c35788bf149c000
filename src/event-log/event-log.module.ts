import { Module } from '@nestjs/common';
import { EventLogRepository } from './event-log.repository.js';
import { EventLogService } from './event-log.service.js';
import { EventRetention } from './event-retention.js';
import { EventsController } from './events.controller.js';
import { EventsResolver, FIRST_FILTER } from './events.resolver.js';
import { declareEventSchema } from './models/event.model.js';
import { describeEventQuery } from './dto/list-events.query.js';

/**
 * The event log for readers: GET /events, the resumable `events` subscription, and retention
 * (EVENTS_RETENTION_DAYS). The log itself (the outbox, the relay) is the events floor's.
 */
@Module({
  controllers: [EventsController],
  providers: [EventLogRepository, EventLogService, EventRetention, EventsResolver],
  exports: [EventLogService, EventRetention],
})
export class EventLogModule {
  constructor() {
    // Every feature module is loaded by now, with its resource: what they declare about their
    // events goes into the GraphQL schema and the OpenAPI document, both built later.
    declareEventSchema(EventsResolver.prototype, 'subscribe', FIRST_FILTER);
    describeEventQuery();
  }
}
