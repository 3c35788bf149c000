import { Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance } from 'fastify';
import { HtmlRenderer } from './html.renderer.js';
import { RepresentationHooks } from './representation.hooks.js';

@Module({
  providers: [HtmlRenderer, RepresentationHooks],
})
export class RepresentationModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly hooks: RepresentationHooks,
  ) {}

  onModuleInit(): void {
    this.hooks.register(this.adapterHost.httpAdapter.getInstance<FastifyInstance>());
  }
}
