import { type DynamicModule, Global, Module } from '@nestjs/common';
import { ResourceCatalog } from './resource-catalog.js';

/** Provides the application's ResourceCatalog (AppModule.forRoot builds it from src/resources.ts). */
@Global()
@Module({})
export class ResourceCatalogModule {
  static forRoot(catalog: ResourceCatalog): DynamicModule {
    return { module: ResourceCatalogModule, providers: [{ provide: ResourceCatalog, useValue: catalog }], exports: [ResourceCatalog] };
  }
}
