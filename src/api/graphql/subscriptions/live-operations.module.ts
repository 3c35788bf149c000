import { Module } from '@nestjs/common';
import { GraphQLSupportModule } from '../graphql-support.module.js';
import { CredentialFollower } from './credential-follower.js';
import { LiveConnections } from './live-connections.js';
import { OperationRunner } from './operation-runner.js';

/**
 * What the two live transports share, one instance each: the path of an operation through the
 * gate to its execution (OperationRunner), the following of a connection's credential
 * (CredentialFollower), and the caps on live connections, which count sockets and streams
 * together (LiveConnections).
 */
@Module({
  imports: [GraphQLSupportModule],
  providers: [OperationRunner, CredentialFollower, LiveConnections],
  exports: [OperationRunner, CredentialFollower, LiveConnections],
})
export class LiveOperationsModule {}
