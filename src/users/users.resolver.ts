import { Args, Context, Int, Mutation, Parent, Query, ResolveField, ResolveReference, Resolver } from '@nestjs/graphql';
import { type EntityReference, referencedId } from '../common/graphql/entity-reference.js';
import type { GraphQLContext } from '../common/graphql/graphql-context.js';
import { connectionOf } from '../common/graphql/page-info.model.js';
import { toPageRequest } from '../common/graphql/page.args.js';
import { CreateUserDto } from './dto/create-user.dto.js';
import { UpdateUserDto } from './dto/update-user.dto.js';
import { UserConnection, UsersArgs } from './models/user-connection.model.js';
import { User } from './user.entity.js';
import { UserLoaders } from './users.loader.js';
import { UsersService } from './users.service.js';
import { ListSize } from '../common/graphql/cost.decorator.js';
import { DEFAULT_PAGE_SIZE } from '../common/pagination/cursor.js';

/** Users over GraphQL: thin over UsersService (same validation, policy and errors as REST). */
@Resolver(() => User)
export class UsersResolver {
  constructor(
    private readonly usersService: UsersService,
    private readonly userLoaders: UserLoaders,
  ) {}

  @Query(() => User, { nullable: true, description: 'A user; null when there is none with this id' })
  user(@Args('id', { type: () => Int, description: "The user's id" }) id: number, @Context() context: GraphQLContext): Promise<User | null> {
    return context.loaders.of(this.userLoaders).byId.load(id);
  }

  /** Federation's `_entities` (GRAPHQL_FEDERATION): a User by reference, as `user(id)` reads it. */
  @ResolveReference()
  async resolveReference(reference: EntityReference, context: GraphQLContext): Promise<User | null> {
    const id = referencedId(reference);
    return id === null ? null : this.user(id, context);
  }

  @ListSize({ slicingArguments: ['first'], assumedSize: DEFAULT_PAGE_SIZE, sizedFields: ['edges', 'nodes'] })
  @Query(() => UserConnection, { description: 'Users, oldest first' })
  async users(@Args() args: UsersArgs, @Context() context: GraphQLContext): Promise<UserConnection> {
    const page = await this.usersService.list(toPageRequest(args));
    for (const user of page.items) context.loaders.of(this.userLoaders).byId.prime(user.id, user);
    return connectionOf(page);
  }

  @Query(() => User, { nullable: true, description: 'The signed-in user; null when anonymous' })
  async me(@Context() context: GraphQLContext): Promise<User | null> {
    return context.actor ? context.loaders.of(this.userLoaders).byId.load(context.actor.id) : null;
  }

  @Mutation(() => User, { description: 'Anyone: signs up an author' })
  createUser(@Args('input', { description: 'The new user' }) input: CreateUserDto, @Context() context: GraphQLContext): Promise<User> {
    return this.usersService.signUp(input, context.clientAddress);
  }

  @ResolveField('commentsBlocked', () => Boolean, {
    nullable: true,
    description: 'Whether their new comments are refused (403 COMMENTS_BLOCKED); null unless you are this user or may block commenters',
  })
  commentsBlocked(@Parent() user: User, @Context() context: GraphQLContext): boolean | null {
    return this.usersService.revealsCommentsBlocked(context.actor, user) ? user.commentsBlocked : null;
  }

  @Mutation(() => User, { description: 'The user or an admin; role: admins only; commentsBlocked: moderators, editors and admins' })
  updateUser(
    @Args('id', { type: () => Int, description: 'The id of the user to change' }) id: number,
    @Args('input', { description: 'What to change' }) input: UpdateUserDto,
    @Context() context: GraphQLContext,
  ): Promise<User> {
    return this.usersService.update(id, input, context.actor, { clientAddress: context.clientAddress });
  }

  @Mutation(() => Int, { description: 'The user or an admin; deletes their posts and comments too. Returns the id' })
  async deleteUser(@Args('id', { type: () => Int, description: 'The id of the user to delete' }) id: number, @Context() context: GraphQLContext): Promise<number> {
    await this.usersService.delete(id, context.actor);
    return id;
  }

  @Mutation(() => Boolean, { description: 'The user or an admin: every token issued to the user so far is refused from now on' })
  async revokeTokens(@Args('userId', { type: () => Int, description: 'The id of the user whose tokens to refuse' }) userId: number, @Context() context: GraphQLContext): Promise<boolean> {
    await this.usersService.revokeTokens(userId, context.actor);
    return true;
  }
}

@Resolver(() => UserConnection)
export class UserConnectionResolver {
  constructor(private readonly usersService: UsersService) {}

  @ResolveField('totalCount', () => Int, { description: 'All users (a COUNT, run only when asked for)' })
  totalCount(): Promise<number> {
    return this.usersService.count();
  }
}
