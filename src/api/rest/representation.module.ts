import { Module } from '@nestjs/common';
import { HtmlRenderer } from './html.renderer.js';
import { RepresentationHooks } from './representation.hooks.js';

/** The renderers; the HTTP pipeline (api/http-pipeline.ts) registers RepresentationHooks. */
@Module({
  providers: [HtmlRenderer, RepresentationHooks],
})
export class RepresentationModule {}
