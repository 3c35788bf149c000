import type { FieldNode, GraphQLSchema } from 'graphql';
import type { CommentScope } from '../../../auth/read-policy.js';
import { MAX_PAGE_SIZE } from '../../../common/pagination/cursor.js';
import { DEFAULT_COMMENTS_PAGE_SIZE } from '../../../comments/models/comment.inputs.js';
import { type EntityTable, toDate } from '../../../common/persistence/entity-table.js';
import type { Sql } from '../../../common/persistence/sql.js';
import { type Fragment, sql } from '../../../common/persistence/sql-template.js';
import type { Dialect } from '../../../common/persistence/dialect.js';
import { Comment } from '../../../comments/comment.entity.js';
import { Post } from '../../../posts/post.entity.js';
import { Tag } from '../../../tags/tag.entity.js';
import { User } from '../../../users/user.entity.js';
import { bySlug, declined, hydrate, intOf, isUnset, parseTuples, type TupleColumn } from './plan-completion.js';
import {
  addColumn,
  type ArgumentValue,
  argumentsOf,
  COLUMN_FIELDS,
  columnObject,
  decline,
  keyOf,
  leaf,
  objectType,
  type PlannedField,
  plainFields,
  selectionsOf,
  typename,
  uniqueKeys,
  type Variables,
} from './plan-walk.js';

/** A post's comments as a plan reads them: their fields, columns, their authors' and `first`. */
export interface PlannedComments {
  fields: PlannedField[];
  columns: string[];
  /** The author's columns; undefined: the author is not selected. */
  authorColumns?: string[];
  first: ArgumentValue;
}

/**
 * What the selections of posts in one document read: the post's columns, its author's and its
 * tags' (each undefined when not selected). Every selection of posts of the document (a
 * connection's `edges { node }` and `nodes`) adds to the same one, so one statement reads them all.
 */
export interface PostColumns {
  columns: string[];
  authorColumns?: string[];
  tagColumns?: string[];
  comments?: PlannedComments;
}

export const newPostColumns = (): PostColumns => ({ columns: ['id'] });

/**
 * The fields of a Post selection: its column fields, `author`, `tags`, and its comments with
 * their authors. A relation selected twice (aliases) reads the union of columns; comments only
 * once in a document (their `first` is the one statement's).
 */
export function postFields(schema: GraphQLSchema, node: FieldNode, into: PostColumns, variables: Variables): PlannedField[] {
  const post = objectType(schema, 'Post');
  const fields: PlannedField[] = [];
  for (const field of plainFields(selectionsOf(node))) {
    const key = keyOf(field);
    const name = field.name.value;
    if (name === '__typename') {
      fields.push(typename(field, 'Post'));
    } else if (COLUMN_FIELDS.Post.has(name)) {
      fields.push(leaf(post, field));
      addColumn(into.columns, name);
    } else if (name === 'author') {
      if (field.arguments?.length) decline();
      into.authorColumns ??= [];
      fields.push({ key, kind: 'object', relation: 'author', fields: columnObject(schema, 'User', field, into.authorColumns) });
    } else if (name === 'tags') {
      if (field.arguments?.length) decline();
      into.tagColumns ??= [];
      // Ordered by slug in code-point order, as the resolvers' tags are.
      const tagFields = columnObject(schema, 'Tag', field, into.tagColumns);
      addColumn(into.tagColumns, 'slug');
      fields.push({ key, kind: 'list', relation: 'tags', fields: tagFields });
    } else if (name === 'comments' && into.comments === undefined) {
      into.comments = commentsOf(schema, field, variables);
      fields.push({ key, kind: 'list', relation: 'comments', fields: into.comments.fields });
    } else {
      decline();
    }
  }
  uniqueKeys(fields);
  return fields;
}

function commentsOf(schema: GraphQLSchema, node: FieldNode, variables: Variables): PlannedComments {
  const { first } = argumentsOf(node, { first: 'Int' }, variables);
  const comment = objectType(schema, 'Comment');
  const list: PlannedComments = { fields: [], columns: ['id'], first: first ?? { absent: true } };
  for (const child of plainFields(selectionsOf(node))) {
    const name = child.name.value;
    if (name === '__typename') {
      list.fields.push(typename(child, 'Comment'));
    } else if (COLUMN_FIELDS.Comment.has(name)) {
      list.fields.push(leaf(comment, child));
      addColumn(list.columns, name);
    } else if (name === 'author') {
      if (child.arguments?.length) decline();
      list.authorColumns ??= [];
      list.fields.push({ key: keyOf(child), kind: 'object', relation: 'author', fields: columnObject(schema, 'User', child, list.authorColumns) });
    } else {
      decline();
    }
  }
  uniqueKeys(list.fields);
  return list;
}

/** The tables and the dialect the plans' statements read, with the tuple columns of their properties. */
export class PlanTables {
  readonly posts: EntityTable<Post>;
  readonly users: EntityTable<User>;
  readonly comments: EntityTable<Comment>;
  readonly tags: EntityTable<Tag>;
  readonly dialect: Dialect;

  constructor(db: Sql) {
    this.posts = db.table(Post);
    this.users = db.table(User);
    this.comments = db.table(Comment);
    this.tags = db.table(Tag);
    this.dialect = db.dialect;
  }

  tuple(table: EntityTable<object>, properties: readonly string[]): TupleColumn[] {
    return properties.map((property) => {
      const column = table.column(property as never);
      return { property, timestamp: column.timestamp, boolean: column.boolean };
    });
  }

  /** `g.slug, g.id, …`: a post's tags' columns over `g`. */
  tagValues(columns: readonly TupleColumn[]): string[] {
    return columns.map((column) => `g.${this.tags.column(column.property as keyof Tag & string).name}`);
  }

  /** A post's tags as JSON tuples, a correlated subquery of the post `postId` (an SQL expression). */
  tagsOf(columns: readonly TupleColumn[], postId: Fragment): Fragment {
    return this.dialect.jsonRows(this.tagValues(columns), sql`FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = ${postId}`);
  }
}

/**
 * Post.comments(first) for this request: `first` as the resolver reads it (default 50, 1-100, an
 * explicit null refused: else the resolver's validation answers, declined).
 */
export function commentsFirstOf(first: ArgumentValue, variables: Record<string, unknown> | undefined): number {
  const given = isUnset(first, variables) ? DEFAULT_COMMENTS_PAGE_SIZE : intOf(first, variables);
  if (given === undefined || given < 1 || given > MAX_PAGE_SIZE) return declined();
  return given;
}

/** ReadPolicy.commentScope as a condition on `c` (CommentsRepository's), null: every comment. */
function commentCondition(scope: CommentScope): Fragment | null {
  switch (scope.kind) {
    case 'approved':
      return sql`c.status = 'approved'`;
    case 'approved-or-own':
      return sql`(c.status = 'approved' OR (c.status = 'pending' AND c.author_id = ${scope.authorId}))`;
    case 'all':
      return null;
  }
}

/** The first `first` comments of the post `postId` (an SQL expression) the reader may see (`scope`), oldest first, with their authors' columns, as JSON tuples. */
export function commentsTuples(tables: PlanTables, comments: CommentsTuple, postId: Fragment, first: number, scope: CommentScope): Fragment {
  const inner = [
    ...comments.columns.map((column, index) => `c.${tables.comments.column(column.property as keyof Comment & string).name} AS v${index}`),
    ...comments.authorColumns.map((column, index) => `u.${tables.users.column(column.property as keyof User & string).name} AS v${comments.columns.length + index}`),
  ];
  const values = inner.map((_, index) => `x.v${index}`);
  const join = comments.authorColumns.length > 0 ? sql.raw(' JOIN users u ON u.id = c.author_id') : sql.empty;
  const visible = commentCondition(scope);
  const from = sql`FROM (SELECT ${sql.raw(inner.join(', '))} FROM comments c${join} WHERE c.post_id = ${postId}${visible ? sql` AND ${visible}` : sql.empty} ORDER BY c.id ASC LIMIT ${first}) x`;
  return tables.dialect.jsonRows(values, from);
}

/** The comments of a jsonRows value, each with its author, oldest first (an aggregate keeps no order the standard promises). */
export function commentsOfTuples(value: unknown, comments: CommentsTuple): Record<string, unknown>[] {
  const list = parseTuples(value).map((tuple) => {
    const comment = hydrate(tuple, comments.columns, 0);
    if (comments.authorColumns.length > 0) comment.author = hydrate(tuple, comments.authorColumns, comments.columns.length);
    return comment;
  });
  return list.sort((a, b) => (a.id as number) - (b.id as number));
}

/** A post's comments' tuple: their columns, their authors' (none: not selected) and `first`. */
export interface CommentsTuple {
  columns: TupleColumn[];
  authorColumns: TupleColumn[];
  first: ArgumentValue;
}

export function commentsTupleOf(tables: PlanTables, comments: PlannedComments): CommentsTuple {
  return { columns: tables.tuple(tables.comments, comments.columns), authorColumns: tables.tuple(tables.users, comments.authorColumns ?? []), first: comments.first };
}

/**
 * A post of a list as one positional tuple: its columns, its group's publication time (the
 * lists' order and cursors), its author's columns (LEFT JOINed: a missing author leaves the
 * request to the resolvers), its tags and its comments as nested JSON tuples.
 */
export interface PostTuple {
  columns: TupleColumn[];
  author?: TupleColumn[];
  tags?: TupleColumn[];
  comments?: CommentsTuple;
}

/** What a list's tuple reads that depends on the request: its comments' `first` and the reader's comment scope. */
export interface TupleRequest {
  commentsFirst: number;
  commentScope: CommentScope;
}

/** The property under which a hydrated list post carries its group's publication time. */
export const LIST_TIME = Symbol('listTime');

export function postTupleOf(tables: PlanTables, selection: PostColumns): PostTuple {
  return {
    columns: tables.tuple(tables.posts, selection.columns),
    author: selection.authorColumns && tables.tuple(tables.users, selection.authorColumns),
    tags: selection.tagColumns && tables.tuple(tables.tags, selection.tagColumns),
    comments: selection.comments && commentsTupleOf(tables, selection.comments),
  };
}

/**
 * The inner select list of a list's posts over `t` (and `a`, the author, when selected), as
 * `v0, v1, …`, and the JOIN it needs; `jsonRows` of them (`x.v0, …`) makes the list one value.
 */
export function postTupleSelect(tables: PlanTables, tuple: PostTuple, request: TupleRequest): { select: Fragment; join: Fragment; values: string[] } {
  const select: Fragment[] = [];
  const column = (expression: string) => sql.raw(`${expression} AS v${select.length}`);
  for (const { property } of tuple.columns) select.push(column(`t.${tables.posts.column(property as keyof Post & string).name}`));
  select.push(column('t.group_published_at'));
  for (const { property } of tuple.author ?? []) select.push(column(`a.${tables.users.column(property as keyof User & string).name}`));
  if (tuple.tags) select.push(sql`${tables.tagsOf(tuple.tags, sql.raw('t.id'))} AS ${sql.raw(`v${select.length}`)}`);
  if (tuple.comments) select.push(sql`${commentsTuples(tables, tuple.comments, sql.raw('t.id'), request.commentsFirst, request.commentScope)} AS ${sql.raw(`v${select.length}`)}`);
  return {
    select: sql.join(select),
    join: tuple.author ? sql.raw(' LEFT JOIN users a ON a.id = t.author_id') : sql.empty,
    values: select.map((_, index) => `x.v${index}`),
  };
}

/** A list's posts from its jsonRows value, each with its author and tags, newest group publication first (then id), as the statement's ORDER BY. */
export function postsOfTuples(value: unknown, tuple: PostTuple): (Record<string, unknown> & { [LIST_TIME]: Date | null })[] {
  const posts = parseTuples(value).map((row) => {
    const post = hydrate(row, tuple.columns, 0) as Record<string, unknown> & { [LIST_TIME]: Date | null };
    let offset = tuple.columns.length;
    const time = row[offset++];
    post[LIST_TIME] = time === null ? null : toDate(time);
    if (tuple.author) {
      const author = hydrate(row, tuple.author, offset);
      offset += tuple.author.length;
      post.author = author.id === null ? null : author;
    }
    if (tuple.tags) post.tags = parseTuples(row[offset++]).map((tag) => hydrate(tag, tuple.tags!, 0)).sort(bySlug);
    if (tuple.comments) post.comments = commentsOfTuples(row[offset], tuple.comments);
    return post;
  });
  // A published post has a group publication time; were one without, its place would be the
  // dialect's (NULLs first or last) and its cursor another time: left to the resolvers.
  if (posts.some((post) => post[LIST_TIME] === null)) declined();
  // An aggregate keeps no order the standard promises.
  return posts.sort((a, b) => b[LIST_TIME]!.getTime() - a[LIST_TIME]!.getTime() || (b.id as number) - (a.id as number));
}
