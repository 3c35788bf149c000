import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from './app.module.js';
import { ResourceCatalog, type ResourceList } from './common/resource/resource-catalog.js';
import { httpServerOptions, registerHttpPipeline } from './api/http-pipeline.js';
import { PinoNestLogger } from './common/logging/request-logging.js';
import { createValidationPipe } from './common/validation/validation.pipe.js';
import type { AppConfig } from './config/app-config.js';
import { ReadRoutingInterceptor } from './database/replicas/read-routing.interceptor.js';
import { ReplicaSet } from './database/replicas/replica-set.js';

/** Builds the whole application (not yet listening): used by main.ts and by the tests. */
export async function createApp(config: AppConfig, resources?: ResourceList): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter(httpServerOptions(config));
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config, resources), adapter, {
    logger: new PinoNestLogger(adapter.getInstance().log),
    abortOnError: false,
    // Fastify's own JSON parser only (the pipeline's): forms and text are refused with 415.
    bodyParser: false,
  });
  // Every hook, parser and plain route, in the order a request meets them (api/http-pipeline.ts).
  registerHttpPipeline(app, config);
  app.useGlobalPipes(createValidationPipe(app.get(ResourceCatalog)));
  // Anonymous reads to the read replicas (DATABASE_REPLICA_URLS); without replicas, no interceptor at all.
  if (app.get(ReplicaSet).enabled) app.useGlobalInterceptors(app.get(ReadRoutingInterceptor));
  return app;
}
