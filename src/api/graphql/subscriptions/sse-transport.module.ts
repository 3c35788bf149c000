import { Module } from '@nestjs/common';
import { LiveOperationsModule } from './live-operations.module.js';
import { SseTransport } from './sse.transport.js';

/** GraphQL over Server-Sent Events (graphql-sse, distinct connections) on /graphql/stream; the HTTP pipeline registers its route. */
@Module({
  imports: [LiveOperationsModule],
  providers: [SseTransport],
  exports: [SseTransport],
})
export class SseTransportModule {}
