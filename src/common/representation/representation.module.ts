import { Module } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { CommentsModule } from '../../comments/comments.module.js';
import { UsersModule } from '../../users/users.module.js';
import { HtmlRenderer } from './html.renderer.js';
import { RepresentationInterceptor } from './representation.interceptor.js';

@Module({
  imports: [UsersModule, CommentsModule],
  providers: [HtmlRenderer, { provide: APP_INTERCEPTOR, useClass: RepresentationInterceptor }],
})
export class RepresentationModule {}
