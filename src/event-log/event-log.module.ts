import { type DynamicModule, Module } from '@nestjs/common';
import type { ResourceCatalog } from '../common/resource/resource-catalog.js';
import { EventLogRepository } from './event-log.repository.js';
import { EventLogService } from './event-log.service.js';
import { EventRetention } from './event-retention.js';
import { EventsController } from './events.controller.js';
import { EventsResolver, FIRST_FILTER } from './events.resolver.js';
import { declareEventSchema } from './models/event.model.js';

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
  /**
   * `catalog`: the application's resources, whose events go into the GraphQL schema (declared
   * here, before it is built). The OpenAPI document states them per application (describeEventLog).
   */
  static forRoot(catalog: ResourceCatalog): DynamicModule {
    declareEventSchema(catalog, EventsResolver.prototype, 'subscribe', FIRST_FILTER);
    return { module: EventLogModule };
  }
}
