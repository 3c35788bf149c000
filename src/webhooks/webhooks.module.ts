import { Module, type OnModuleInit } from '@nestjs/common';
import { EventPublisher } from '../events/event-publisher.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDispatcher } from './webhook-dispatcher.js';
import { WebhookRetention } from './webhook-retention.js';
import { WebhooksController } from './webhooks.controller.js';
import { WebhooksRepository } from './webhooks.repository.js';
import { WebhooksService } from './webhooks.service.js';

/** Webhooks: admins' subscriptions of URLs to events, and their signed, retried delivery. */
@Module({
  controllers: [WebhooksController],
  providers: [WebhooksRepository, WebhookDeliveriesRepository, WebhooksService, WebhookDispatcher, WebhookRetention],
})
export class WebhooksModule implements OnModuleInit {
  constructor(
    private readonly events: EventPublisher,
    private readonly deliveries: WebhookDeliveriesRepository,
  ) {}

  /** Deliveries keep a copy of their event's content: an erasure of the log's erases theirs. */
  onModuleInit(): void {
    this.events.addEraser(this.deliveries);
  }
}
