import { Module } from '@nestjs/common';
import { PublicationModule } from '../../publication/publication.module.js';
import { HtmlRenderer } from './html.renderer.js';
import { SyndicationModule } from '../../publication/syndication.module.js';
import { PagesModule } from './pages/pages.module.js';
import { RepresentationHooks } from './representation.hooks.js';

/** The renderers; the HTTP pipeline (api/http-pipeline.ts) registers RepresentationHooks. */
@Module({
  imports: [PagesModule, PublicationModule, SyndicationModule],
  providers: [HtmlRenderer, RepresentationHooks],
})
export class RepresentationModule {}
