import { Module } from '@nestjs/common';
import { PostsModule } from '../posts/posts.module.js';
import { UsersModule } from '../users/users.module.js';
import { FeedRenderer } from './feed.renderer.js';
import { FeedsController } from './feeds.controller.js';
import { FeedsService } from './feeds.service.js';
import { PublicationModule } from './publication.module.js';
import { SitemapController } from './sitemap.controller.js';
import { SitemapService } from './sitemap.service.js';
import { TagsModule } from '../tags/tags.module.js';

/**
 * What a reader or a crawler follows (CONTRACT §13): GET /feed, the feed types of the post lists
 * (FeedRenderer, for the representation hooks), the sitemap and robots.txt. Apart from
 * PublicationModule, which the posts import for their addresses.
 */
@Module({
  imports: [PostsModule, TagsModule, UsersModule, PublicationModule],
  controllers: [FeedsController, SitemapController],
  providers: [FeedsService, FeedRenderer, SitemapService],
  exports: [FeedRenderer],
})
export class SyndicationModule {}
