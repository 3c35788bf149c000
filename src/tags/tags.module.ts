import { Module } from '@nestjs/common';
import { TagsController } from './tags.controller.js';
import { TagEventsResolver } from './tag-events.resolver.js';
import { TagLoaders } from './tags.loader.js';
import { TagsRepository } from './tags.repository.js';
import { PostTagsResolver, TagConnectionResolver, TagsResolver } from './tags.resolver.js';
import { TagsService } from './tags.service.js';

/** Tags (CONTRACT §8): the resource, its GraphQL type, and Post.tags; PostsModule tags posts through TagsService. */
@Module({
  controllers: [TagsController],
  providers: [TagsRepository, TagsService, TagLoaders, TagsResolver, TagConnectionResolver, PostTagsResolver, TagEventsResolver],
  exports: [TagsService, TagLoaders, TagsRepository],
})
export class TagsModule {}
