import { Module } from '@nestjs/common';
import { MediaFilesController } from './media-files.controller.js';
import { MediaController } from './media.controller.js';
import { ImageWorkSlots } from './image-work-slots.js';
import { MediaEventsResolver } from './media-events.resolver.js';
import { MediaLoaders } from './media.loader.js';
import { MediaRepository } from './media.repository.js';
import { MediaConnectionResolver, MediaResolver } from './media.resolver.js';
import { MediaService } from './media.service.js';
import { MediaUploadService } from './media-upload.service.js';
import { MediaVariantsWorker } from './media-variants.worker.js';
import { MediaStorageModule } from './storage/media-storage.module.js';

/** Media (CONTRACT §14): uploads, the resource, its files and variants; PostsModule checks covers through MediaService and resolves Post.coverImage. */
@Module({
  imports: [MediaStorageModule],
  controllers: [MediaController, MediaFilesController],
  providers: [ImageWorkSlots, MediaRepository, MediaUploadService, MediaService, MediaLoaders, MediaResolver, MediaConnectionResolver, MediaEventsResolver, MediaVariantsWorker],
  exports: [MediaService, MediaLoaders, MediaVariantsWorker],
})
export class MediaModule {}
