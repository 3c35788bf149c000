import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module.js';
import { PolicyModule } from './auth/policy.module.js';
import type { AppConfig } from './config/app-config.js';
import { RateLimitModule } from './common/rate-limit/rate-limit.module.js';
import { RepresentationModule } from './api/rest/representation.module.js';
import { RedisModule } from './redis/redis.module.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { GraphQLApiModule } from './api/graphql/graphql-api.module.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { CommentsModule } from './comments/comments.module.js';
import { PostsModule } from './posts/posts.module.js';
import { TagsModule } from './tags/tags.module.js';
import { MediaModule } from './media/media.module.js';
import { EventsModule } from './events/events.module.js';
import { AuditModule } from './audit/audit.module.js';
import { EventLogModule } from './event-log/event-log.module.js';
import { UsersModule } from './users/users.module.js';
import { TokensModule } from './tokens/tokens.module.js';
import { ApiKeysModule } from './api-keys/api-keys.module.js';
import { DemoModule } from './demo/demo.module.js';
import { OidcModule } from './oidc/oidc.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { PersonalDataModule } from './personal-data/personal-data.module.js';
import { SyndicationModule } from './publication/syndication.module.js';
import { ResourceCatalog, type ResourceList } from './common/resource/resource-catalog.js';
import { ResourceCatalogModule } from './common/resource/resource-catalog.module.js';
import { RESOURCES } from './resources.js';

@Module({})
export class AppModule {
  /** `resources`: what the application serves (src/resources.ts; a test may name others). */
  static forRoot(config: AppConfig, resources: ResourceList = RESOURCES): DynamicModule {
    const catalog = new ResourceCatalog(resources);
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        ResourceCatalogModule.forRoot(catalog),
        MetricsModule,
        DatabaseModule.forRoot(catalog.entities),
        RedisModule,
        RateLimitModule,
        PolicyModule,
        EventsModule,
        AuditModule,
        AuthModule,
        UsersModule,
        TagsModule,
        MediaModule,
        PostsModule,
        CommentsModule,
        EventLogModule.forRoot(catalog),
        TokensModule,
        ApiKeysModule,
        WebhooksModule,
        PersonalDataModule,
        SyndicationModule,
        OidcModule.forRoot(config),
        DemoModule,
        HealthModule,
        RepresentationModule,
        GraphQLApiModule.forRoot(config),
      ],
    };
  }
}
