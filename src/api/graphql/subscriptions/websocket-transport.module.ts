import { Module } from '@nestjs/common';
import { LiveOperationsModule } from './live-operations.module.js';
import { WebSocketTransport } from './websocket.transport.js';

/** GraphQL over WebSocket (graphql-ws) on /graphql: the HTTP pipeline hands it the HTTP server's upgrades. */
@Module({
  imports: [LiveOperationsModule],
  providers: [WebSocketTransport],
  exports: [WebSocketTransport],
})
export class WebSocketTransportModule {}
