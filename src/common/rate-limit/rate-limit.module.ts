import { Global, Module } from '@nestjs/common';
import { ThrottlerStorageService } from '@nestjs/throttler';
import { RateLimiter } from './rate-limiter.js';
import { SearchLimiter } from './search-limiter.js';
import { SignInLimiter } from './sign-in-limiter.js';

/**
 * The rate limits' counters (in memory, or in Redis with REDIS_URL). The general limit is checked
 * by `rateLimitHook`, which the HTTP pipeline (api/http-pipeline.ts) places before any other work;
 * the sign-in limits (SignInLimiter) by the services that check passwords, the search budget
 * (SearchLimiter) by the posts' service.
 */
@Global()
@Module({ providers: [ThrottlerStorageService, RateLimiter, SignInLimiter, SearchLimiter], exports: [RateLimiter, SignInLimiter, SearchLimiter] })
export class RateLimitModule {}
