import { Controller, Get, Headers, Ip, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiGetFeed } from '../common/openapi/api-docs.decorators.js';
import { ChoosesLanguage, NegotiatedRepresentations, ServesFeeds } from '../common/resource/negotiated.js';
import type { ResourceList } from '../common/resource/resource.js';
import { POST_RESOURCE } from '../posts/post.resource.js';
import { LIST_OR_TIME_CURSOR_PATTERN } from '../common/pagination/cursor.js';
import { POST_CURSOR_PATTERN } from '../posts/post-order.js';
import { FeedQuery } from './dto/feed.query.js';
import { FeedsService } from './feeds.service.js';

/** The feed's cursors: the public list's, or (with tags) a filtered list's, as on GET /posts. */
const FEED_CURSOR_PATTERN = `^(?:${LIST_OR_TIME_CURSOR_PATTERN.slice(1, -1)}|${POST_CURSOR_PATTERN.slice(1, -1)})$`;

/** GET /feed: the newest public posts as Atom, RSS or JSON Feed (the representation hooks hand the list to FeedRenderer). */
@ApiTags('publication')
@NegotiatedRepresentations()
@Controller()
export class FeedsController {
  constructor(private readonly feeds: FeedsService) {}

  @Get('feed')
  @ServesFeeds('only')
  @ChoosesLanguage()
  @ApiOperation({
    summary: 'The newest public posts as a feed: Atom 1.0 (the default), RSS 2.0 (application/rss+xml) or JSON Feed 1.1 (application/feed+json)',
    description:
      'Filters authorId, tag (repeatable) and locale as on GET /posts (one post per translation group, in the language of locale, else of Accept-Language); paged by Link rel="next" (RFC 5005). ETag and Last-Modified (the newest entry), answered 304 for If-None-Match or If-Modified-Since.',
  })
  @ApiGetFeed(FEED_CURSOR_PATTERN)
  async feed(@Query() query: FeedQuery, @Headers('accept-language') acceptLanguage: string | undefined, @Ip() clientAddress: string): Promise<ResourceList> {
    const page = await this.feeds.page(query, acceptLanguage, clientAddress);
    return POST_RESOURCE.list(page.posts, page.nextPath);
  }
}
