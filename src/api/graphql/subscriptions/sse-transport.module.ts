import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { LiveOperationsModule } from './live-operations.module.js';
import { SseTransport } from './sse.transport.js';

/** GraphQL over Server-Sent Events (graphql-sse, distinct connections) on /graphql/stream. */
@Module({
  imports: [LiveOperationsModule],
  providers: [SseTransport],
})
export class SseTransportModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly transport: SseTransport,
  ) {}

  onModuleInit(): void {
    // The route of /graphql/stream, registered on Fastify before it starts listening.
    this.transport.register(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
  }
}
