import { Module, type OnModuleInit } from '@nestjs/common';
import { PostsModule, withAuthorNames } from '../posts/posts.module.js';
import { POST_RESOURCE } from '../posts/post.resource.js';
import { UsersModule } from '../users/users.module.js';
import { UsersService } from '../users/users.service.js';
import { threaded } from './comment-thread.html.js';
import { COMMENT_RESOURCE } from './comment.resource.js';
import { CommentModerationService } from './comment-moderation.service.js';
import { CommentsController } from './comments.controller.js';
import { CommentLoaders } from './comments.loader.js';
import { CommentsRepository } from './comments.repository.js';
import { CommentsResolver, PostCommentsResolver } from './comments.resolver.js';
import { CommentsService } from './comments.service.js';
import { CommentEventsResolver } from './comment-events.resolver.js';
import { ModerationController } from './moderation.controller.js';
import { ModerationResolver } from './moderation.resolver.js';

const COMMENTS_ON_POST_PAGE = 100;

@Module({
  imports: [UsersModule, PostsModule],
  controllers: [CommentsController, ModerationController],
  providers: [CommentsRepository, CommentsService, CommentModerationService, CommentLoaders, CommentsResolver, PostCommentsResolver, ModerationResolver, CommentEventsResolver],
  exports: [CommentsService, CommentsRepository],
})
export class CommentsModule implements OnModuleInit {
  constructor(
    private readonly users: UsersService,
    private readonly comments: CommentsService,
  ) {}

  /**
   * Pages show authors' names rather than ids; a post's page shows its first comments the reader
   * sees; both show comments as threads (replies under their parent, within the page).
   */
  onModuleInit(): void {
    COMMENT_RESOURCE.setPageData('author', async (view) => ({ author: (await this.users.namesOf([view.authorId as number])).get(view.authorId as number) }));
    COMMENT_RESOURCE.setListData(async (views) => threaded(await withAuthorNames(this.users, views)));
    POST_RESOURCE.setPageData('comments', async (post, reader) => {
      const page = await this.comments.firstPageOf(post.id as number, { limit: COMMENTS_ON_POST_PAGE }, reader);
      const views = await withAuthorNames(this.users, page.items.map((comment) => COMMENT_RESOURCE.view(comment)));
      return { comments: threaded(views), commentCount: views.length, moreComments: page.nextCursor !== null };
    });
  }
}
