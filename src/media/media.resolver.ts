import { Args, Context, Int, Mutation, Query, ResolveField, Resolver, Subscription } from '@nestjs/graphql';
import { matches, optionalId, SubscriptionGateway } from '../events/subscription-gateway.js';
import { ListSize } from '../common/graphql/cost.decorator.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { connectionOf } from '../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE, decodeCursor } from '../common/pagination/cursor.js';
import { UpdateMediaDto } from './dto/update-media.dto.js';
import { Media } from './media.entity.js';
import { MediaLoaders } from './media.loader.js';
import { MediaService } from './media.service.js';
import { MediaConnection, MediaListArgs } from './models/media-connection.model.js';

/** Media over GraphQL: thin over MediaService (same policy and errors as REST); uploads are REST only. */
@Resolver(() => Media)
export class MediaResolver {
  constructor(
    private readonly mediaService: MediaService,
    private readonly mediaLoaders: MediaLoaders,
    private readonly gateway: SubscriptionGateway,
  ) {}

  @Query(() => Media, { nullable: true, description: 'A media item by id; null when there is none you may see' })
  async media(@Args('id', { type: () => Int, description: "The item's id" }) id: number, @Context() context: GraphQLContext): Promise<Media | null> {
    // The loader reads items whatever their state (it is shared); the reader's sight is asked here.
    const media = await context.loaders.of(this.mediaLoaders).byId.load(id);
    return media && this.mediaService.canSee(media, context.actor) ? media : null;
  }

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_PAGE_SIZE, sizedFields: ['edges', 'nodes'] })
  @Query(() => MediaConnection, { description: 'The media items you may see (an author: their own and the public ones), newest first' })
  async mediaList(@Args() args: MediaListArgs, @Context() context: GraphQLContext): Promise<MediaConnection> {
    const page = await this.mediaService.list({ limit: args.first, ...(args.after == null ? {} : { after: decodeCursor(args.after, 'after') }) }, context.actor);
    const byId = context.loaders.of(this.mediaLoaders).byId;
    for (const item of page.items) byId.prime(item.id, item);
    return connectionOf(page);
  }

  @Mutation(() => Media, { description: "Changes a media item's alt, caption or focal point (its uploader, editors and admins)" })
  updateMedia(
    @Args('id', { type: () => Int, description: 'The id of the item to change' }) id: number,
    @Args('input', { description: 'The changes' }) input: UpdateMediaDto,
    @Context() context: GraphQLContext,
  ): Promise<Media> {
    return this.mediaService.update(id, input, context.actor);
  }

  @Mutation(() => Int, { description: 'Deletes a media item and its files (its uploader, editors and admins; CONFLICT while a post uses it). Returns the id' })
  async deleteMedia(@Args('id', { type: () => Int, description: 'The id of the item to delete' }) id: number, @Context() context: GraphQLContext): Promise<number> {
    await this.mediaService.delete(id, context.actor);
    return id;
  }

  @Subscription(() => Media, { description: 'An image was uploaded (seen by those who see it)', resolve: (media: Media) => media })
  mediaCreated(@Context() context: GraphQLContext) {
    return this.gateway.listen('mediaCreated', context, () => true);
  }

  @Subscription(() => Media, { description: "A media item's alt, caption or focal point changed", resolve: (media: Media) => media })
  mediaUpdated(@optionalId('id', 'Only this media item') id: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('mediaUpdated', context, (media) => matches(id, media.id));
  }

  @Subscription(() => Int, { description: 'The id of a deleted media item', resolve: (deleted: { id: number }) => deleted.id })
  mediaDeleted(@optionalId('id', 'Only this media item') id: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('mediaDeleted', context, (deleted) => matches(id, deleted.id));
  }
}

@Resolver(() => MediaConnection)
export class MediaConnectionResolver {
  constructor(private readonly mediaService: MediaService) {}

  @ResolveField('totalCount', () => Int, { description: 'All the media items you may see (a COUNT, run only when asked for)' })
  totalCount(_connection: MediaConnection, _args: unknown, context: GraphQLContext): Promise<number> {
    return this.mediaService.count(context.actor);
  }
}
