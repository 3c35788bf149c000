import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PostsController } from './posts.controller.js';
import { Post } from './post.entity.js';
import { PostConnectionResolver, PostsResolver } from './posts.resolver.js';
import { PostsService } from './posts.service.js';

@Module({
  imports: [TypeOrmModule.forFeature([Post])],
  controllers: [PostsController],
  providers: [PostsService, PostsResolver, PostConnectionResolver],
  exports: [PostsService],
})
export class PostsModule {}
