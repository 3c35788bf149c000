import { ArgsType, Field, Float, GraphQLISODateTime, Int, ObjectType, registerEnumType } from '@nestjs/graphql';
import { ArrayMaxSize, IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { POST_STATUSES, type PostStatus } from '../../auth/read-policy.js';
import { FirstArg } from '../../common/graphql/page.args.js';
import { PageInfo } from '../../common/graphql/page-info.model.js';
import { DEFAULT_PAGE_SIZE } from '../../common/pagination/cursor.js';
import { ArgumentCost } from '../../common/graphql/cost.decorator.js';
import { Post } from '../post.entity.js';
import { IsDateTime, MaxChars } from '../../common/validation/transforms.js';
import { MAX_LOCALE_LENGTH, MAX_POST_CURSOR_LENGTH, MAX_SEARCH_LENGTH, MAX_TAG_FILTERS, TAG_SLUG_PATTERN } from '../dto/list-posts.query.js';
import type { PostSort } from '../post-order.js';
import type { PostFinding, PostListScope } from '../post-finder.service.js';
import { GraphQLPostStatus } from './post-status.enum.js';
import { MAX_INT32 } from '../../common/validation/limits.js';

/** Query.posts(orderBy): the orders of GET /posts?sort=, as GraphQL spells them. */
export const GraphQLPostOrder = {
  PUBLISHED_AT_DESC: '-publishedAt',
  PUBLISHED_AT_ASC: 'publishedAt',
  UPDATED_AT_DESC: '-updatedAt',
  TITLE_ASC: 'title',
  RELEVANCE: 'relevance',
} as const satisfies Record<string, PostSort>;

registerEnumType(GraphQLPostOrder, {
  name: 'PostOrder',
  description: 'The order of a list of posts (then by id); with status, the publication orders are by creation',
  valuesMap: {
    PUBLISHED_AT_DESC: { description: 'Newest publication first (the default without search)' },
    PUBLISHED_AT_ASC: { description: 'Oldest publication first' },
    UPDATED_AT_DESC: { description: 'Last changed first' },
    TITLE_ASC: { description: 'By title' },
    RELEVANCE: { description: 'Most relevant first: with search only (the default with it)' },
  },
});

@ObjectType('PostEdge', { description: 'A Post with its cursor; in a search, its rank and snippet' })
export class PostEdge {
  @Field(() => String, { description: 'The cursor of this Post: pass it as `after` for the posts after it' })
  cursor: string;

  @Field(() => Post, { description: 'The Post' })
  node: Post;

  @Field(() => Float, { nullable: true, description: 'In a search: how it ranks (higher: more relevant); null otherwise' })
  rank?: number | null;

  @Field(() => String, { nullable: true, description: 'In a search: the plain text around its first match (at most 200 characters); null otherwise' })
  snippet?: string | null;
}

/** A page of posts. `totalCount` is a resolved field, counted only when selected. */
@ObjectType('PostConnection', { description: 'A page of posts, newest first unless ordered otherwise' })
export class PostConnection {
  @Field(() => [PostEdge], { description: 'The posts of this page, each with its cursor' })
  edges: PostEdge[];

  @Field(() => [Post], { description: "The posts of this page (the edges' nodes, without cursors)" })
  nodes: Post[];

  @Field(() => PageInfo, { description: 'Where this page stands in the list, and the cursor for the next page' })
  pageInfo: PageInfo;

  /** Not a field: the list's filter, the read policy applied, that totalCount counts with. */
  scope: PostListScope;

  /** Not a field: the filters besides the scope (none: the plain list). */
  finding?: PostFinding;
}

const DATE_MESSAGE = (name: string) => ({ message: `${name} must be a DateTime in years 0001-9999` });

/** What a full-text `search` adds to the cost of `Query.posts` (ranking and snippets). */
export const SEARCH_WEIGHT = 10;

/** Query.posts(first, after, authorId, tag, search, status, publishedAfter, publishedBefore, orderBy). */
@ArgsType()
export class PostsArgs {
  @FirstArg(DEFAULT_PAGE_SIZE)
  first: number;

  @Field(() => String, { nullable: true, description: 'The endCursor (or an edge cursor) of the previous page, of the same list (order and filters)' })
  @MaxLength(MAX_POST_CURSOR_LENGTH, { message: 'after is not a cursor this service issued' })
  @IsString()
  @IsOptional()
  after?: string | null;

  @Field(() => Int, { nullable: true, description: "Only this author's posts" })
  @Max(MAX_INT32, { message: 'authorId must be a positive integer' })
  @Min(1, { message: 'authorId must be a positive integer' })
  @IsInt({ message: 'authorId must be a positive integer' })
  @IsOptional()
  authorId?: number | null;

  @Field(() => [String], { nullable: true, description: `Tag slugs: the posts that have every one (at most ${MAX_TAG_FILTERS})` })
  @Matches(new RegExp(TAG_SLUG_PATTERN), { message: 'tag must be a tag slug (a-z, 0-9 and -, at most 50 characters)', each: true })
  @ArrayMaxSize(MAX_TAG_FILTERS, { message: `tag takes at most ${MAX_TAG_FILTERS} slugs` })
  @IsOptional()
  tag?: string[] | null;

  @Field(() => String, { nullable: true, description: `Full-text search over title and body (at most ${MAX_SEARCH_LENGTH} characters): words, "phrases", -excluded; edges carry rank and snippet` })
  @ArgumentCost(SEARCH_WEIGHT)
  @MaxChars(MAX_SEARCH_LENGTH, { message: `search must be at most ${MAX_SEARCH_LENGTH} characters` })
  @IsOptional()
  search?: string | null;

  @Field(() => GraphQLPostStatus, { nullable: true, description: 'DRAFT, IN_REVIEW, SCHEDULED or TRASHED: those of your posts (admins: everyone\'s) in that state, newest first (signed in only). Default: the public posts' })
  @IsIn(POST_STATUSES, { message: 'status must be a PostStatus' })
  @IsOptional()
  status?: PostStatus | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Posts published at or after this time (inclusive)' })
  @IsDateTime(DATE_MESSAGE('publishedAfter'))
  @IsOptional()
  publishedAfter?: Date | null;

  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Posts published before this time (exclusive)' })
  @IsDateTime(DATE_MESSAGE('publishedBefore'))
  @IsOptional()
  publishedBefore?: Date | null;

  @Field(() => GraphQLPostOrder, { nullable: true, description: 'PUBLISHED_AT_DESC unless search is given (then RELEVANCE)' })
  @IsIn(Object.values(GraphQLPostOrder), { message: 'orderBy must be a PostOrder' })
  @IsOptional()
  orderBy?: PostSort | null;
  @Field(() => String, {
    nullable: true,
    description:
      'The language to show each translation group in: one of SUPPORTED_LOCALES (else along LOCALE_FALLBACKS, then DEFAULT_LOCALE, then any), or * for every translation. Default: the lookup of the request\'s Accept-Language, else DEFAULT_LOCALE',
  })
  @MaxLength(MAX_LOCALE_LENGTH, { message: 'locale must be * or one of SUPPORTED_LOCALES' })
  @IsString({ message: 'locale must be * or one of SUPPORTED_LOCALES' })
  @IsOptional()
  locale?: string | null;
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
