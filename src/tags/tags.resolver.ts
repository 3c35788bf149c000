import { Args, Context, Int, Mutation, Query, ResolveField, ResolveReference, Resolver, Subscription } from '@nestjs/graphql';
import { DomainError } from '../common/errors/domain-error.js';
import { type EntityReference, referencedId } from '../common/graphql/entity-reference.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { connectionOf } from '../common/graphql/page-info.model.js';
import { matches, optionalId, SubscriptionGateway } from '../events/subscription-gateway.js';
import { CreateTagDto } from './dto/create-tag.dto.js';
import { UpdateTagDto } from './dto/update-tag.dto.js';
import { TagArgs, TagConnection, TagsArgs } from './models/tag-connection.model.js';
import { decodeTagCursor } from './tag-cursor.js';
import { Tag } from './tag.entity.js';
import { TagLoaders } from './tags.loader.js';
import { TagsService } from './tags.service.js';
import { ListSize } from '../common/graphql/cost.decorator.js';
import { DEFAULT_PAGE_SIZE } from '../common/pagination/cursor.js';

/** Tags over GraphQL: thin over TagsService (same validation, policy and errors as REST). */
@Resolver(() => Tag)
export class TagsResolver {
  constructor(
    private readonly tagsService: TagsService,
    private readonly tagLoaders: TagLoaders,
    private readonly gateway: SubscriptionGateway,
  ) {}

  @Query(() => Tag, { nullable: true, description: 'A tag by id or by slug (exactly one of them); null when there is none' })
  async tag(@Args() args: TagArgs, @Context() context: GraphQLContext): Promise<Tag | null> {
    if ((args.id == null) === (args.slug == null)) {
      const message = 'give exactly one of id and slug';
      throw DomainError.badInput(`tag: ${message}`, [{ field: args.id == null ? 'id' : 'slug', message }]);
    }
    if (args.id != null) {
      // The loader reads tags whatever their state (it is shared); the reader's sight is asked here.
      const tag = await context.loaders.of(this.tagLoaders).byId.load(args.id);
      return tag && (await this.tagsService.canSee(tag, context.actor)) ? tag : null;
    }
    return this.tagsService.findBySlug(args.slug ?? '', context.actor);
  }

  /** Federation's `_entities` (GRAPHQL_FEDERATION): a Tag by reference, as `tag(id)` reads it. */
  @ResolveReference()
  async resolveReference(reference: EntityReference, context: GraphQLContext): Promise<Tag | null> {
    const id = referencedId(reference);
    return id === null ? null : this.tag({ id }, context);
  }

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_PAGE_SIZE, sizedFields: ['edges', 'nodes'] })
  @Query(() => TagConnection, { description: 'Tags, most used first (by their public posts), then by id' })
  async tags(@Args() args: TagsArgs, @Context() context: GraphQLContext): Promise<TagConnection> {
    const page = await this.tagsService.list({ limit: args.first, ...(args.after == null ? {} : { after: decodeTagCursor(args.after, 'after') }) }, context.actor);
    const byId = context.loaders.of(this.tagLoaders).byId;
    for (const tag of page.items) byId.prime(tag.id, tag);
    return connectionOf(page);
  }

  @ResolveField('postCount', () => Int, { description: 'How many public posts carry it' })
  async postCount(tag: Tag, _args: unknown, context: GraphQLContext): Promise<number> {
    if (tag.postCount !== undefined) return tag.postCount;
    return (await context.loaders.of(this.tagLoaders).byId.load(tag.id))?.postCount ?? 0;
  }

  @Mutation(() => Tag, { description: 'Editors and admins: makes a tag (its slug derived from its name; a taken slug is CONFLICT)' })
  createTag(@Args('input', { description: 'The new tag' }) input: CreateTagDto, @Context() context: GraphQLContext): Promise<Tag> {
    return this.tagsService.create(input, context.actor);
  }

  @Mutation(() => Tag, { description: 'Editors and admins: renames a tag (its slug derived again; a taken slug is CONFLICT)' })
  updateTag(
    @Args('id', { type: () => Int, description: 'The id of the tag to rename' }) id: number,
    @Args('input', { description: 'Its new name' }) input: UpdateTagDto,
    @Context() context: GraphQLContext,
  ): Promise<Tag> {
    return this.tagsService.update(id, input, context.actor);
  }

  @Mutation(() => Int, { description: 'Editors and admins: deletes a tag (the posts that carried it lose it). Returns the id' })
  async deleteTag(@Args('id', { type: () => Int, description: 'The id of the tag to delete' }) id: number, @Context() context: GraphQLContext): Promise<number> {
    await this.tagsService.delete(id, context.actor);
    return id;
  }

  @Subscription(() => Tag, { description: 'A tag was made', resolve: (tag: Tag) => tag })
  tagCreated(@Context() context: GraphQLContext) {
    return this.gateway.listen('tagCreated', context, () => true);
  }

  @Subscription(() => Tag, { description: 'A tag was renamed', resolve: (tag: Tag) => tag })
  tagUpdated(@optionalId('id', 'Only this tag') id: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('tagUpdated', context, (tag) => matches(id, tag.id));
  }

  @Subscription(() => Int, { description: 'The id of a deleted tag', resolve: (deleted: { id: number }) => deleted.id })
  tagDeleted(@optionalId('id', 'Only this tag') id: number | null, @Context() context: GraphQLContext) {
    return this.gateway.listen('tagDeleted', context, (deleted) => matches(id, deleted.id));
  }
}

@Resolver(() => TagConnection)
export class TagConnectionResolver {
  constructor(private readonly tagsService: TagsService) {}

  @ResolveField('totalCount', () => Int, { description: 'All the tags you may see (a COUNT, run only when asked for)' })
  totalCount(_connection: TagConnection, _args: unknown, context: GraphQLContext): Promise<number> {
    return this.tagsService.count(context.actor);
  }
}
