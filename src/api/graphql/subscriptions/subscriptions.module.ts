import { Module } from '@nestjs/common';
import { AuthModule } from '../../../auth/auth.module.js';
import { GraphQLSupportModule } from '../graphql-support.module.js';
import { SubscriptionTransports } from './subscription-transports.js';

/**
 * The WebSocket and SSE transports that carry subscriptions (and any other operation) through
 * the operation gate. The Subscription fields are their features' (posts, comments). The HTTP
 * pipeline (api/http-pipeline.ts) attaches the WebSocket server and registers the SSE route.
 */
@Module({
  imports: [AuthModule, GraphQLSupportModule],
  providers: [SubscriptionTransports],
  exports: [SubscriptionTransports],
})
export class SubscriptionsModule {}
