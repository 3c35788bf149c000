import { Module } from '@nestjs/common';
import { CommentsModule } from '../comments/comments.module.js';
import { MediaModule } from '../media/media.module.js';
import { PostsModule } from '../posts/posts.module.js';
import { PersonalDataController } from './personal-data.controller.js';
import { PersonalDataService } from './personal-data.service.js';

/**
 * A person's data on request (CONTRACT §16): GET /users/{id}/export. It reads what the features
 * own through their services and repositories (API keys and the single sign-on identities are
 * provided globally); nothing imports it.
 */
@Module({
  imports: [PostsModule, CommentsModule, MediaModule],
  controllers: [PersonalDataController],
  providers: [PersonalDataService],
})
export class PersonalDataModule {}
