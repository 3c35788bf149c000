import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { FilesystemMediaStorage } from './filesystem-media-storage.js';
import { MediaStorage } from './media-storage.js';

/** The MediaStorage of MEDIA_STORAGE: files under MEDIA_DIR, or an S3-compatible bucket. */
export function mediaStorageFor(config: AppConfig): MediaStorage {
  if (config.mediaStorage === 's3') {
    // S3 DRIVER: construct S3MediaStorage (./s3-media-storage.ts) from config.s3Endpoint, s3Bucket, s3Region, s3ForcePathStyle here.
    throw new Error('MEDIA_STORAGE=s3: the S3 driver is not part of this build yet');
  }
  return new FilesystemMediaStorage(config.mediaDir);
}

/** Provides MediaStorage, chosen by MEDIA_STORAGE (CONTRACT §14). */
@Module({
  providers: [{ provide: MediaStorage, useFactory: mediaStorageFor, inject: [AppConfig] }],
  exports: [MediaStorage],
})
export class MediaStorageModule {}
