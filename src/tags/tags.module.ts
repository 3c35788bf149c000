import { Module } from '@nestjs/common';
import { TagsController } from './tags.controller.js';
import { TagEventsResolver } from './tag-events.resolver.js';
import { TagLoaders } from './tags.loader.js';
import { TagsRepository } from './tags.repository.js';
import { TagConnectionResolver, TagsResolver } from './tags.resolver.js';
import { TagsService } from './tags.service.js';

/** Tags (CONTRACT §8): the resource and its GraphQL type; PostsModule tags posts through TagsService and resolves Post.tags and Tag.posts. */
@Module({
  controllers: [TagsController],
  providers: [TagsRepository, TagsService, TagLoaders, TagsResolver, TagConnectionResolver, TagEventsResolver],
  exports: [TagsService, TagLoaders, TagsRepository],
})
export class TagsModule {}
