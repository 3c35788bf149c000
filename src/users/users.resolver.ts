import { Args, Context, Int, Mutation, Parent, Query, ResolveField, Resolver } from '@nestjs/graphql';
import type { GraphQLContext } from '../graphql/graphql-context.js';
import { connectionOf } from '../graphql/models/page-info.model.js';
import { toPageRequest } from '../graphql/models/page.args.js';
import { UserPostsArgs } from '../posts/models/post-connection.model.js';
import { Post } from '../posts/post.entity.js';
import { CreateUserDto } from './dto/create-user.dto.js';
import { UpdateUserDto } from './dto/update-user.dto.js';
import { UserConnection, UsersArgs } from './models/user-connection.model.js';
import { User } from './user.entity.js';
import { UsersService } from './users.service.js';

/** Users over GraphQL: thin over UsersService (same validation, policy and errors as REST). */
@Resolver(() => User)
export class UsersResolver {
  constructor(private readonly usersService: UsersService) {}

  @Query(() => User, { nullable: true, description: 'A user; null when there is none with this id' })
  user(@Args('id', { type: () => Int }) id: number, @Context() context: GraphQLContext): Promise<User | null> {
    return context.loaders.userById.load(id);
  }

  @Query(() => UserConnection, { description: 'Users, oldest first' })
  async users(@Args() args: UsersArgs, @Context() context: GraphQLContext): Promise<UserConnection> {
    const page = await this.usersService.list(toPageRequest(args));
    for (const user of page.items) context.loaders.userById.prime(user.id, user);
    return connectionOf(page);
  }

  @Query(() => User, { nullable: true, description: 'The signed-in user; null when anonymous' })
  async me(@Context() context: GraphQLContext): Promise<User | null> {
    return context.actor ? context.loaders.userById.load(context.actor.id) : null;
  }

  @Mutation(() => User, { description: 'Anyone: signs up an author' })
  createUser(@Args('input') input: CreateUserDto): Promise<User> {
    return this.usersService.create(input);
  }

  @Mutation(() => User, { description: 'The user or an admin; role: admins only' })
  updateUser(
    @Args('id', { type: () => Int }) id: number,
    @Args('input') input: UpdateUserDto,
    @Context() context: GraphQLContext,
  ): Promise<User> {
    return this.usersService.update(id, input, context.actor);
  }

  @Mutation(() => Int, { description: 'The user or an admin; deletes their posts and comments too. Returns the id' })
  async deleteUser(@Args('id', { type: () => Int }) id: number, @Context() context: GraphQLContext): Promise<number> {
    await this.usersService.delete(id, context.actor);
    return id;
  }

  @ResolveField('posts', () => [Post], { description: 'Newest first' })
  posts(
    // A plain type, not the entity class, so that no validation pipe looks at the parent.
    @Parent() user: Pick<User, 'id'>,
    @Args() args: UserPostsArgs,
    @Context() context: GraphQLContext,
  ): Promise<Post[]> {
    return context.loaders.postsByAuthor(toPageRequest(args)).load(user.id);
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
