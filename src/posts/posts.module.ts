import { Module, type OnModuleInit } from '@nestjs/common';
import type { ResourceView } from '../common/resource/resource.js';
import { TagsModule } from '../tags/tags.module.js';
import { UsersModule } from '../users/users.module.js';
import { UsersService } from '../users/users.service.js';
import { PostFinder } from './post-finder.service.js';
import { PostRevisionsRepository } from './post-revisions.repository.js';
import { PostRevisions } from './post-revisions.service.js';
import { PostScheduler } from './post-scheduler.js';
import { POST_RESOURCE } from './post.resource.js';
import { PostsController } from './posts.controller.js';
import { PostLoaders } from './posts.loader.js';
import { PostsRepository } from './posts.repository.js';
import { PostConnectionResolver, PostsResolver, UserPostsResolver } from './posts.resolver.js';
import { PostsService } from './posts.service.js';
import { PostEventsResolver } from './post-events.resolver.js';
import { TrashRetention } from './trash-retention.js';

@Module({
  imports: [UsersModule, TagsModule],
  controllers: [PostsController],
  providers: [
    PostsRepository,
    PostRevisionsRepository,
    PostsService,
    PostFinder,
    PostRevisions,
    PostLoaders,
    PostsResolver,
    UserPostsResolver,
    PostConnectionResolver,
    PostEventsResolver,
    PostScheduler,
    TrashRetention,
  ],
  exports: [PostsService, PostsRepository, PostRevisionsRepository, PostLoaders, PostScheduler, TrashRetention],
})
export class PostsModule implements OnModuleInit {
  constructor(private readonly users: UsersService) {}

  /** Pages show the author's name rather than an id. */
  onModuleInit(): void {
    POST_RESOURCE.setPageData('author', async (view) => ({ author: (await this.users.namesOf([view.authorId as number])).get(view.authorId as number) }));
    POST_RESOURCE.setListData((views) => withAuthorNames(this.users, views));
  }
}

/** Each view with `authorName`, in one statement for the whole list. */
export async function withAuthorNames(users: UsersService, views: ResourceView[]): Promise<ResourceView[]> {
  const names = await users.namesOf(views.map((view) => view.authorId as number));
  return views.map((view) => ({ ...view, authorName: names.get(view.authorId as number)?.name ?? 'unknown' }));
}
