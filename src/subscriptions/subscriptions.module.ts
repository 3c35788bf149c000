import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { AuthModule } from '../auth/auth.module.js';
import { GraphQLSupportModule } from '../graphql/graphql-support.module.js';
import { SubscriptionGateway } from './subscription-gateway.js';
import { SubscriptionTransports } from './subscription-transports.js';
import { SubscriptionsResolver } from './subscriptions.resolver.js';

/**
 * The subscriptions gateway: the six Subscription fields, their filtering and authorization
 * against the event bus, and the WebSocket and SSE transports that carry them.
 */
@Module({
  imports: [AuthModule, GraphQLSupportModule],
  providers: [SubscriptionGateway, SubscriptionsResolver, SubscriptionTransports],
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
