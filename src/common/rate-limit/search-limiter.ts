import { Injectable } from '@nestjs/common';
import { AppConfig } from '../../config/app-config.js';
import { type LimitState, rateLimitHeaders } from './rate-limit-headers.js';
import { RateLimiter, rateLimited } from './rate-limiter.js';

/** The search budget's name in the RateLimit headers. */
export const SEARCH_POLICY = 'search';

/**
 * The search budget: RATE_LIMIT_SEARCH_MAX searches per client address per window, apart from
 * the request limit, since a search costs the database more than any other read. Counted once
 * per search the service runs (REST `GET /posts?q=`, each searched `posts` field of a GraphQL
 * operation on any transport), whatever its `limit`, so varying the page size buys no searches;
 * an answer from the response cache runs none and is not counted.
 */
@Injectable()
export class SearchLimiter {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
  ) {}

  /** Counts one search of the address: where the budget stands (null when off), or 429 RATE_LIMITED past it. */
  async count(clientAddress: string): Promise<LimitState | null> {
    const state = await this.limiter.count(`search-ip:${clientAddress}`, SEARCH_POLICY, this.config.rateLimitSearchMax, this.config.rateLimitWindowS);
    if (state?.exceeded) throw rateLimited(state.resetS, rateLimitHeaders([state]));
    return state;
  }
}
