import { Module } from '@nestjs/common';
import { AuthModule } from '../../auth/auth.module.js';
import { PageInfoResolver } from '../../common/graphql/page-info.resolver.js';
import { OperationGate } from './gate/operation-gate.js';
import { GraphQLContextFactory } from './graphql-context.factory.js';
import { PostPagePlanner } from './plans/post-page-planner.js';

/** What the GraphQL server is built from: the operation gate, the context factory, the planner of planned documents and the resolvers shared by every feature. */
@Module({
  imports: [AuthModule],
  providers: [GraphQLContextFactory, OperationGate, PageInfoResolver, PostPagePlanner],
  exports: [GraphQLContextFactory, OperationGate, PostPagePlanner],
})
export class GraphQLSupportModule {}
