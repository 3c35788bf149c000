import { ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { Media } from '../media/media.entity.js';
import { MediaLoaders } from '../media/media.loader.js';
import { MediaService } from '../media/media.service.js';
import { Post } from './post.entity.js';

/** Post.coverImage: a post's cover, batched over the posts of a request. Posts know media (a post has a cover); media know nothing of posts. */
@Resolver(() => Post)
export class PostCoverResolver {
  constructor(
    private readonly mediaLoaders: MediaLoaders,
    private readonly media: MediaService,
  ) {}

  @ResolveField('coverImage', () => Media, { nullable: true, description: 'Its cover image; null when it has none (or none you may see)' })
  async coverImage(post: Post, _args: unknown, context: GraphQLContext): Promise<Media | null> {
    if (post.coverImageId === null || post.coverImageId === undefined) return null;
    const media = await context.loaders.of(this.mediaLoaders).byId.load(post.coverImageId);
    return media && this.media.canSee(media, context.actor) ? media : null;
  }
}
