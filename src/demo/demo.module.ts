import { Module } from '@nestjs/common';
import { CommentsModule } from '../comments/comments.module.js';
import { ContentModule } from '../content/content.module.js';
import { PostsModule } from '../posts/posts.module.js';
import { TagsModule } from '../tags/tags.module.js';
import { DemoSeeder } from './demo-seeder.js';

/** The first admin and the demo content, at start-up. */
@Module({
  imports: [PostsModule, CommentsModule, TagsModule, ContentModule],
  providers: [DemoSeeder],
})
export class DemoModule {}
