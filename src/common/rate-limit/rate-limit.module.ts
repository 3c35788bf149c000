import { Global, Inject, Module, type OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ThrottlerStorageService } from '@nestjs/throttler';
import type { FastifyInstance } from 'fastify';
import { AppConfig } from '../../config/app-config.js';
import { RateLimiter, requestKey } from './rate-limiter.js';
import { SignInLimiter } from './sign-in-limiter.js';

/**
 * RATE_LIMIT_MAX requests per RATE_LIMIT_WINDOW_S per client address, on every route (REST,
 * GraphQL, docs), checked in a Fastify hook before any other work. The stricter sign-in limits
 * (SignInLimiter) are applied by the services that check passwords, so REST and GraphQL share them.
 */
@Global()
@Module({ providers: [ThrottlerStorageService, RateLimiter, SignInLimiter], exports: [RateLimiter, SignInLimiter] })
export class RateLimitModule implements OnModuleInit {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const { rateLimitMax, rateLimitWindowS } = this.config;
    if (rateLimitMax <= 0) return;
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    fastify.addHook('onRequest', async (request) => {
      await this.limiter.consume(requestKey(request.ip), rateLimitMax, rateLimitWindowS);
    });
  }
}
