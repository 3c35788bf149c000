import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module.js';
import { PostsModule } from '../posts/posts.module.js';
import { UsersModule } from '../users/users.module.js';
import { CommentModerationService } from './comment-moderation.service.js';
import { CommentsController } from './comments.controller.js';
import { CommentLoaders } from './comments.loader.js';
import { CommentsRepository } from './comments.repository.js';
import { CommentsResolver, PostCommentsResolver } from './comments.resolver.js';
import { CommentsService } from './comments.service.js';
import { CommentEventsResolver } from './comment-events.resolver.js';
import { ModerationController } from './moderation.controller.js';
import { ModerationResolver } from './moderation.resolver.js';

@Module({
  imports: [UsersModule, PostsModule, ContentModule],
  controllers: [CommentsController, ModerationController],
  providers: [CommentsRepository, CommentsService, CommentModerationService, CommentLoaders, CommentsResolver, PostCommentsResolver, ModerationResolver, CommentEventsResolver],
  exports: [CommentsService, CommentsRepository],
})
export class CommentsModule {}
