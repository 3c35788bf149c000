import { Module } from '@nestjs/common';
import { PublicationModule } from '../publication/publication.module.js';
import { ContentRenderer } from './content-renderer.js';

/** Rendering of post and comment bodies to sanitized HTML (CONTRACT §13). */
@Module({
  imports: [PublicationModule],
  providers: [ContentRenderer],
  exports: [ContentRenderer],
})
export class ContentModule {}
