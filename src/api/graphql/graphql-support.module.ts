import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { OperationGate } from './gate/operation-gate.js';
import { GraphQLContextFactory } from './graphql-context.factory.js';

/** What the GraphQL server is built from: the operation gate and the context factory. */
@Module({
  imports: [AuthModule],
  providers: [GraphQLContextFactory, OperationGate],
  exports: [GraphQLContextFactory, OperationGate],
})
export class GraphQLSupportModule {}
