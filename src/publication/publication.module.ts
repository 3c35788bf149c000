import { Module } from '@nestjs/common';
import { PublicUrls } from './public-urls.js';

/** The public addresses of the service (PUBLIC_BASE_URL, PUBLIC_POST_URL). */
@Module({
  providers: [PublicUrls],
  exports: [PublicUrls],
})
export class PublicationModule {}
