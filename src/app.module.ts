import { type DynamicModule, Module } from '@nestjs/common';
import { AuthModule } from './auth/auth.module.js';
import { PolicyModule } from './auth/policy.module.js';
import type { AppConfig } from './config/app-config.js';
import { RateLimitModule } from './common/rate-limit/rate-limit.module.js';
import { RepresentationModule } from './common/representation/representation.module.js';
import { RedisModule } from './redis/redis.module.js';
import { ConfigModule } from './config/config.module.js';
import { DatabaseModule } from './database/database.module.js';
import { GraphQLApiModule } from './graphql/graphql-api.module.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { CommentsModule } from './comments/comments.module.js';
import { PostsModule } from './posts/posts.module.js';
import { EventsModule } from './subscriptions/events.module.js';
import { UsersModule } from './users/users.module.js';

@Module({})
export class AppModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        MetricsModule,
        DatabaseModule,
        RedisModule,
        RateLimitModule,
        PolicyModule,
        EventsModule,
        AuthModule,
        UsersModule,
        PostsModule,
        CommentsModule,
        HealthModule,
        RepresentationModule,
        GraphQLApiModule,
      ],
    };
  }
}
