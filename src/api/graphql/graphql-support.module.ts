import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { PageInfoResolver } from '../../common/graphql/page-info.resolver.js';
import { OperationGate } from './gate/operation-gate.js';
import { GraphQLContextFactory } from './graphql-context.factory.js';
import { QueryPlanner } from './plans/query-planner.js';

/** What the GraphQL server is built from: the operation gate, the context factory, the planner of planned documents and the resolvers shared by every feature. */
@Module({
  imports: [AuthModule],
  providers: [GraphQLContextFactory, OperationGate, PageInfoResolver, QueryPlanner],
  exports: [GraphQLContextFactory, OperationGate, QueryPlanner],
})
export class GraphQLSupportModule {}
