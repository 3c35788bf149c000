import { Module } from '@nestjs/common';
import { HtmlRenderer } from './html.renderer.js';
import { PagesModule } from './pages/pages.module.js';
import { RepresentationHooks } from './representation.hooks.js';

/** The renderers; the HTTP pipeline (api/http-pipeline.ts) registers RepresentationHooks. */
@Module({
  imports: [PagesModule],
  providers: [HtmlRenderer, RepresentationHooks],
})
export class RepresentationModule {}
