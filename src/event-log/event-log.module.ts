import { Module } from '@nestjs/common';
import { PostsModule } from '../posts/posts.module.js';
import { EventLogRepository } from './event-log.repository.js';
import { EventLogService } from './event-log.service.js';
import { EventRetention } from './event-retention.js';
import { EventsController } from './events.controller.js';
import { EventsResolver } from './events.resolver.js';

/**
 * The event log for readers: GET /events, the resumable `events` subscription, and retention
 * (EVENTS_RETENTION_DAYS). The log itself (the outbox, the relay) is the events floor's.
 */
@Module({
  imports: [PostsModule],
  controllers: [EventsController],
  providers: [EventLogRepository, EventLogService, EventRetention, EventsResolver],
  exports: [EventLogService, EventRetention],
})
export class EventLogModule {}
