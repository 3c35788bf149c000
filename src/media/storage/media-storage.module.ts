import { Module } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { FilesystemMediaStorage } from './filesystem-media-storage.js';
import { MediaStorage } from './media-storage.js';

/**
 * The MediaStorage of MEDIA_STORAGE: files under MEDIA_DIR, or an S3-compatible bucket. The AWS
 * SDK is loaded only for `s3` (about 20 MB of resident memory that a filesystem instance does not need).
 */
export async function mediaStorageFor(config: AppConfig): Promise<MediaStorage> {
  if (config.mediaStorage === 's3') {
    const { S3MediaStorage } = await import('./s3-media-storage.js');
    // Without credentials here the SDK reads AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or the instance's role) itself.
    return new S3MediaStorage({ endpoint: config.s3Endpoint, bucket: config.s3Bucket!, region: config.s3Region, forcePathStyle: config.s3ForcePathStyle });
  }
  return new FilesystemMediaStorage(config.mediaDir);
}

/** Provides MediaStorage, chosen by MEDIA_STORAGE (CONTRACT §14). */
@Module({
  providers: [{ provide: MediaStorage, useFactory: mediaStorageFor, inject: [AppConfig] }],
  exports: [MediaStorage],
})
export class MediaStorageModule {}
