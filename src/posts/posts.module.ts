import { Module } from '@nestjs/common';
import { ContentModule } from '../content/content.module.js';
import { MediaModule } from '../media/media.module.js';
import { PublicationModule } from '../publication/publication.module.js';
import { TagsModule } from '../tags/tags.module.js';
import { UsersModule } from '../users/users.module.js';
import { PostFinder } from './post-finder.service.js';
import { PostPreviewsController } from './post-previews.controller.js';
import { PostPreviews } from './post-previews.service.js';
import { PostRevisionsRepository } from './post-revisions.repository.js';
import { PostRevisions } from './post-revisions.service.js';
import { PostScheduler } from './post-scheduler.js';
import { PostsController } from './posts.controller.js';
import { PostLoaders } from './posts.loader.js';
import { PostsRepository } from './posts.repository.js';
import { PostConnectionResolver, PostsResolver, UserPostsResolver } from './posts.resolver.js';
import { PostSlugsRepository } from './post-slugs.repository.js';
import { PostSlugs } from './post-slugs.service.js';
import { PostsService } from './posts.service.js';
import { PostEventsResolver } from './post-events.resolver.js';
import { PostTagsResolver, TagPostsResolver } from './post-tags.resolver.js';
import { PostCoverResolver } from './post-cover.resolver.js';
import { TrashRetention } from './trash-retention.js';
import { PostReviewsController } from './post-reviews.controller.js';
import { PostReviewsRepository } from './post-reviews.repository.js';
import { PostReviewsResolver } from './post-reviews.resolver.js';
import { PostReviews } from './post-reviews.service.js';

@Module({
  imports: [UsersModule, TagsModule, MediaModule, ContentModule, PublicationModule],
  controllers: [PostsController, PostPreviewsController, PostReviewsController],
  providers: [
    PostsRepository,
    PostRevisionsRepository,
    PostReviewsRepository,
    PostSlugsRepository,
    PostsService,
    PostSlugs,
    PostPreviews,
    PostFinder,
    PostRevisions,
    PostReviews,
    PostReviewsResolver,
    PostLoaders,
    PostsResolver,
    UserPostsResolver,
    PostConnectionResolver,
    PostEventsResolver,
    PostTagsResolver,
    PostCoverResolver,
    TagPostsResolver,
    PostScheduler,
    TrashRetention,
  ],
  exports: [PostsService, PostFinder, PostSlugs, PostsRepository, PostRevisionsRepository, PostLoaders, PostScheduler, TrashRetention],
})
export class PostsModule {}
