import { Injectable } from '@nestjs/common';
import { type Page, toPageRequest } from '../common/pagination/cursor.js';
import type { Post } from '../posts/post.entity.js';
import { PostFinder } from '../posts/post-finder.service.js';
import type { FeedQuery } from './dto/feed.query.js';

/** The names GET /feed gives the finder's parameters, for its errors (no search, no sort: never named). */
const FEED_FIELDS = { q: 'q', sort: 'sort', cursor: 'cursor' };

/** A page of a feed: its posts, and the next page's path when there are more. */
export interface FeedPage {
  posts: Post[];
  nextPath: string | null;
}

/**
 * GET /feed's posts: the public list (the read policy's anonymous scope, whoever asks), newest
 * publication first, filtered by author, tags and language as GET /posts is, paged by that list's cursor.
 */
@Injectable()
export class FeedsService {
  constructor(private readonly finder: PostFinder) {}

  async page(query: FeedQuery, acceptLanguage: string | undefined, clientAddress: string): Promise<FeedPage> {
    // Feeds are public: the anonymous scope, even for an admin's token.
    const scope = this.finder.scope(null, { authorId: query.authorId }, this.finder.languagesOf(query.locale, acceptLanguage));
    const finding = { tags: query.tag };
    const request = toPageRequest({ limit: query.limit, cursor: this.finder.isPlainList(finding) ? query.cursor : undefined });
    const page: Page<Post> = this.finder.isPlainList(finding)
      ? await this.finder.list(scope, request)
      : await this.finder.find(scope, finding, { limit: request.limit, cursor: query.cursor }, FEED_FIELDS, clientAddress);
    return { posts: page.items, nextPath: nextFeedPath(page.nextCursor, query, request.limit) };
  }
}

/** The next page of the feed: the same filters (every tag repeated) after `cursor`. */
function nextFeedPath(cursor: string | null, query: FeedQuery, limit: number): string | null {
  if (cursor === null) return null;
  const params = new URLSearchParams({ limit: String(limit) });
  if (query.authorId !== undefined) params.set('authorId', String(query.authorId));
  if (query.locale !== undefined) params.set('locale', query.locale);
  for (const tag of query.tag ?? []) params.append('tag', tag);
  params.set('cursor', cursor);
  return `/feed?${params.toString()}`;
}
