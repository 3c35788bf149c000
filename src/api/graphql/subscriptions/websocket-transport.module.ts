import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { LiveOperationsModule } from './live-operations.module.js';
import { WebSocketTransport } from './websocket.transport.js';

/** GraphQL over WebSocket (graphql-ws) on /graphql: takes over the HTTP server's upgrades. */
@Module({
  imports: [LiveOperationsModule],
  providers: [WebSocketTransport],
})
export class WebSocketTransportModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly transport: WebSocketTransport,
  ) {}

  onModuleInit(): void {
    this.transport.attach(this.adapterHost.httpAdapter.getHttpServer());
  }
}
