import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { AuthModule } from '../../../auth/auth.module.js';
import { GraphQLSupportModule } from '../graphql-support.module.js';
import { SubscriptionTransports } from './subscription-transports.js';

/**
 * The WebSocket and SSE transports that carry subscriptions (and any other operation) through
 * the operation gate. The Subscription fields are their features' (posts, comments).
 */
@Module({
  imports: [AuthModule, GraphQLSupportModule],
  providers: [SubscriptionTransports],
  exports: [SubscriptionTransports],
})
export class SubscriptionsModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly transports: SubscriptionTransports,
  ) {}

  onModuleInit(): void {
    this.transports.registerSse(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
    this.transports.attachWebSocket(this.adapterHost.httpAdapter.getHttpServer());
  }
}
