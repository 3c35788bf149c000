import { Args, Context, Parent, ResolveField, Resolver } from '@nestjs/graphql';
import { ListSize } from '../common/graphql/cost.decorator.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { DEFAULT_PAGE_SIZE } from '../common/pagination/cursor.js';
import { declareLiveFields, isWithheld } from '../common/resource/snapshot-fields.js';
import { TagPostsArgs } from '../tags/models/tag-connection.model.js';
import { Tag } from '../tags/tag.entity.js';
import { TagLoaders } from '../tags/tags.loader.js';
import { MAX_TAGS_PER_POST } from '../tags/tags.service.js';
import { Post } from './post.entity.js';
import { PostLoaders } from './posts.loader.js';

// Read now, not from an event's snapshot (snapshot-fields).
declareLiveFields('Post', 'tags');

/** Post.tags: a post's tags, batched. Posts know tags (a post is tagged); tags know nothing of posts. */
@Resolver(() => Post)
export class PostTagsResolver {
  constructor(private readonly tagLoaders: TagLoaders) {}

  @ListSize({ assumedSize: MAX_TAGS_PER_POST })
  @ResolveField('tags', () => [Tag], { description: 'Its tags, by slug' })
  tags(post: Post, _args: unknown, context: GraphQLContext): Promise<Tag[]> {
    if (isWithheld(post)) return Promise.resolve([]);
    return context.loaders.of(this.tagLoaders).ofPost.load(post.id);
  }
}

/** Tag.posts: the newest public posts of a tag, batched over the tags of a request. */
@Resolver(() => Tag)
export class TagPostsResolver {
  constructor(private readonly postLoaders: PostLoaders) {}

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_PAGE_SIZE })
  @ResolveField('posts', () => [Post], { description: 'Its newest public posts, newest publication first' })
  posts(@Parent() tag: Pick<Tag, 'id'>, @Args() args: TagPostsArgs, @Context() context: GraphQLContext): Promise<Post[]> {
    return context.loaders.of(this.postLoaders).byTag(args.first).load(tag.id);
  }
}
