import { ArgsType, Field, Int, ObjectType } from '@nestjs/graphql';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { POST_STATUSES, type PostStatus } from '../../auth/read-policy.js';
import { AfterArg, FirstArg } from '../../common/graphql/page.args.js';
import { ConnectionType } from '../../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/cursor.js';
import { Post } from '../post.entity.js';
import type { PostListScope } from '../posts.service.js';
import { GraphQLPostStatus } from './post-status.enum.js';
import { MAX_INT32 } from '../../common/validation/limits.js';

/** A page of posts, newest first. `totalCount` is a resolved field, counted only when selected. */
@ObjectType('PostConnection', { description: 'A page of posts, newest first' })
export class PostConnection extends ConnectionType(Post, 'Post') {
  /** Not a field: the list's filter, the read policy applied, that totalCount counts with. */
  scope: PostListScope;
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

  @Field(() => GraphQLPostStatus, { nullable: true, description: 'DRAFT, SCHEDULED or TRASHED: those of your posts (admins: everyone\'s) in that state, newest first (signed in only). Default: the public posts' })
  @IsIn(POST_STATUSES, { message: 'status must be a PostStatus' })
  @IsOptional()
  status?: PostStatus | null;
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

/** Post.revisions(first): the newest revisions. */
@ArgsType()
export class RevisionsArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;
}
