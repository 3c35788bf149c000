import { Global, Module } from '@nestjs/common';
import { ThrottlerStorageService } from '@nestjs/throttler';
import { RateLimiter } from './rate-limiter.js';
import { SignInLimiter } from './sign-in-limiter.js';

/**
 * The rate limits' counters (in memory, or in Redis with REDIS_URL). The general limit is checked
 * by `rateLimitHook`, which the HTTP pipeline (api/http-pipeline.ts) places before any other work;
 * the sign-in limits (SignInLimiter) by the services that check passwords.
 */
@Global()
@Module({ providers: [ThrottlerStorageService, RateLimiter, SignInLimiter], exports: [RateLimiter, SignInLimiter] })
export class RateLimitModule {}
