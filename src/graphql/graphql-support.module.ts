import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module.js';
import { CommentsModule } from '../comments/comments.module.js';
import { PostsModule } from '../posts/posts.module.js';
import { UsersModule } from '../users/users.module.js';
import { OperationGate } from './gate/operation-gate.js';
import { GraphQLContextFactory } from './graphql-context.js';
import { LoadersFactory } from './loaders.js';

/** What the GraphQL server is built from: the operation gate, the context factory and the per-request loaders. */
@Module({
  imports: [AuthModule, UsersModule, PostsModule, CommentsModule],
  providers: [LoadersFactory, GraphQLContextFactory, OperationGate],
  exports: [LoadersFactory, GraphQLContextFactory, OperationGate],
})
export class GraphQLSupportModule {}
