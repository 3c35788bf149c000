import { PickType } from '@nestjs/swagger';
import { ListPostsQuery } from '../../posts/dto/list-posts.query.js';

/** GET /feed: `limit` and `cursor`, and GET /posts' `authorId`, `tag` and `locale` filters, declared there (the public posts only: no `status`). */
export class FeedQuery extends PickType(ListPostsQuery, ['limit', 'cursor', 'authorId', 'tag', 'locale'] as const) {}
