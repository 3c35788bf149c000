import { ArgsType, Field, Int, ObjectType } from '@nestjs/graphql';
import { IsInt, IsOptional, Max, Min } from 'class-validator';
import { AfterArg, FirstArg } from '../../common/graphql/page.args.js';
import { ConnectionType } from '../../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/cursor.js';
import { Post } from '../post.entity.js';
import { MAX_INT32 } from '../../common/validation/limits.js';

/** A page of posts, newest first. `totalCount` is a resolved field, counted only when selected. */
@ObjectType('PostConnection', { description: 'A page of posts, newest first' })
export class PostConnection extends ConnectionType(Post, 'Post') {
  /** Not a field: the filter that totalCount counts with. */
  authorId?: number;
}

/** Query.posts(first, after, authorId). */
@ArgsType()
export class PostsArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;

  @AfterArg()
  after?: string | null;

  @Field(() => Int, { nullable: true, description: "Only this author's posts" })
  @Max(MAX_INT32, { message: 'authorId must be a positive integer' })
  @Min(1, { message: 'authorId must be a positive integer' })
  @IsInt({ message: 'authorId must be a positive integer' })
  @IsOptional()
  authorId?: number | null;
}

/**
 * User.posts(first): the user's newest posts. A bare list hands out no cursors, so it takes no
 * `after` (Query.posts(authorId) pages through them all).
 */
@ArgsType()
export class UserPostsArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;
}
