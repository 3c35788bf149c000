import { Injectable } from '@nestjs/common';
import type { GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { LRUCache } from 'lru-cache';
import { type CommentScope, type PostScope, ReadPolicy } from '../../../auth/read-policy.js';
import { commentsTag, POSTS_TAG, postTag, recordReadIds, recordReadTags } from '../../../common/cache/read-tags.js';
import type { Actor } from '../../../common/actor.js';
import { type EntityTable, toDate } from '../../../common/persistence/entity-table.js';
import { Sql } from '../../../common/persistence/sql.js';
import { type Fragment, sql } from '../../../common/persistence/sql-template.js';
import { MAX_PAGE_SIZE } from '../../../common/pagination/cursor.js';
import { AppConfig } from '../../../config/app-config.js';
import { Comment } from '../../../comments/comment.entity.js';
import { DEFAULT_COMMENTS_PAGE_SIZE } from '../../../comments/models/comment.inputs.js';
import { Post } from '../../../posts/post.entity.js';
import { Tag } from '../../../tags/tag.entity.js';
import { User } from '../../../users/user.entity.js';
import { type ArgumentValue, type PlannedField, type PostPagePlan, planPostPage } from './post-page-plan.js';

/** How many documents' plans (or their absence) are kept. */
const MAX_PLANS = 500;
const MAX_INT32 = 2_147_483_647;

/** A column of a positional row (Dialect.jsonRows): where its value goes and how it is read. */
interface TupleColumn {
  property: string;
  timestamp: boolean;
  boolean: boolean;
}

/** A plan with what its statement reads, per table, in the order of its tuples. */
interface Prepared {
  plan: PostPagePlan;
  postProperties: string[];
  authorProperties?: string[];
  comments?: { columns: TupleColumn[]; authorColumns: TupleColumn[]; first: ArgumentValue };
  tags?: TupleColumn[];
}

/** What runs a planned document: its request's variables and reader. */
export interface PlannedRequest {
  queryHash: string;
  operationName: string | undefined;
  operation: OperationDefinitionNode;
  schema: GraphQLSchema;
  variables: Record<string, unknown> | undefined;
  actor: Actor | null;
}

/** Thrown where an answer cannot be given as the resolvers would: the document then runs as before. */
class Declined extends Error {}

const declined = (): never => {
  throw new Declined();
};

/**
 * The planned post page (issue 43): `post(id:)` with its scalars, author, comments (with their
 * authors) and tags in ONE statement per request, its plan built on first sight of a document
 * (post-page-plan.ts) and kept in an LRU by the document's hash and operation name (the variables
 * it reads are looked at on each request: a value the resolvers would refuse, or an absent id,
 * leaves that request to them). The read
 * policy is applied in the statement, as the repositories apply it: the post's scope
 * (ReadPolicy.postScope) and the comments' (commentScope) are chosen conditions with the reader's
 * id as a parameter, so each scope kind has one statement text, prepared once. The answer is
 * built as graphql-js would complete it (response keys in selection order, leaves serialized by
 * their schema types), and the read tags recorded are those of the resolvers' reads, so the
 * response cache keeps and drops it alike.
 */
@Injectable()
export class PostPagePlanner {
  /** GRAPHQL_PLANS; a test turns it off and on to compare planned and unplanned answers on one database. */
  enabled: boolean;
  private readonly plans = new LRUCache<string, Prepared | false>({ max: MAX_PLANS });
  private readonly posts: EntityTable<Post>;
  private readonly users: EntityTable<User>;
  private readonly comments: EntityTable<Comment>;
  private readonly tags: EntityTable<Tag>;
  private readonly translated: boolean;

  constructor(
    private readonly db: Sql,
    private readonly readPolicy: ReadPolicy,
    config: AppConfig,
  ) {
    this.enabled = config.graphqlPlans === 'on';
    this.translated = config.supportedLocales.length > 1;
    this.posts = db.table(Post);
    this.users = db.table(User);
    this.comments = db.table(Comment);
    this.tags = db.table(Tag);
  }

  /** The response's `data`, or undefined when the document has no plan or this request cannot be answered by it. */
  async run(request: PlannedRequest): Promise<Record<string, unknown> | undefined> {
    const key = `${request.queryHash}\u0000${request.operationName ?? ''}`;
    let prepared = this.plans.get(key);
    if (prepared === undefined) {
      const plan = planPostPage(request.schema, request.operation);
      prepared = plan ? this.prepare(plan, request.operation) : false;
      this.plans.set(key, prepared);
    }
    if (prepared === false) return undefined;
    try {
      return await this.execute(prepared, request);
    } catch {
      // Declined, or the statement failed (the database away, the pool saturated): the resolvers
      // then answer as they do without a plan, with their errors in the response.
      return undefined;
    }
  }

  private prepare(plan: PostPagePlan, operation: OperationDefinitionNode): Prepared | false {
    // The variables the plan reads are declared Int or Int!; their values are checked on each request.
    const variables = new Map((operation.variableDefinitions ?? []).map((definition) => [definition.variable.name.value, definition]));
    for (const value of [plan.id, plan.comments?.first]) {
      if (value && 'variable' in value) {
        const type = variables.get(value.variable)?.type;
        const named = type?.kind === 'NonNullType' ? type.type : type;
        if (named?.kind !== 'NamedType' || named.name.value !== 'Int') return false;
      }
    }
    const tuple = (table: EntityTable<object>, properties: readonly string[]): TupleColumn[] =>
      properties.map((property) => {
        const column = table.column(property as never);
        return { property, timestamp: column.timestamp, boolean: column.boolean };
      });
    return {
      plan,
      postProperties: plan.columns,
      authorProperties: plan.authorColumns,
      comments: plan.comments && {
        columns: tuple(this.comments, plan.comments.columns),
        authorColumns: tuple(this.users, plan.comments.authorColumns ?? []),
        first: plan.comments.first ?? { absent: true },
      },
      tags: plan.tags && tuple(this.tags, plan.tags.columns),
    };
  }

  private async execute(prepared: Prepared, request: PlannedRequest): Promise<Record<string, unknown>> {
    const { plan } = prepared;
    const id = intOf(plan.id, request.variables);
    if (id === undefined) return declined();
    let first = DEFAULT_COMMENTS_PAGE_SIZE;
    if (prepared.comments) {
      const given = intOf(prepared.comments.first, request.variables);
      if (given !== undefined) first = given;
      else if (!('absent' in prepared.comments.first) && !isUnset(prepared.comments.first, request.variables)) return declined();
      // Outside 1-100 the resolver's validation answers (with its error).
      if (first < 1 || first > MAX_PAGE_SIZE) return declined();
    }
    const statement = this.statement(prepared, id, first, this.readPolicy.postScope(request.actor), this.readPolicy.commentScope(request.actor));
    // The reads' tags, as PostsRepository, CommentsRepository and TagsRepository record them.
    recordReadIds(postTag, [id]);
    if (this.translated) recordReadTags(POSTS_TAG);
    const [row] = await this.db.rows<Record<string, unknown>>(statement);
    if (!row) return { [plan.key]: null };
    if (prepared.comments) recordReadIds(commentsTag, [id]);
    const post = this.posts.fromRow(row, '', prepared.postProperties) as unknown as Record<string, unknown>;
    const author = prepared.authorProperties && (this.users.fromRow(row, 'a_', prepared.authorProperties) as unknown as Record<string, unknown>);
    const related: Related = { author };
    if (prepared.comments) related.comments = this.commentsOf(row.planned_comments, prepared.comments.columns, prepared.comments.authorColumns);
    if (prepared.tags) related.tags = tuplesOf(row.planned_tags, prepared.tags).sort(bySlug);
    return { [plan.key]: complete(plan.fields, post, related) };
  }

  /** The one statement: the post (and its author) by id within the reader's scope, its comments and tags as JSON tuples. */
  private statement(prepared: Prepared, id: number, first: number, postScope: PostScope, commentScope: CommentScope): Fragment {
    const dialect = this.db.dialect;
    const select: Fragment[] = [sql.raw(this.posts.selectList('p', '', prepared.postProperties))];
    if (prepared.authorProperties) select.push(sql.raw(this.users.selectList('a', 'a_', prepared.authorProperties)));
    if (prepared.comments) {
      const { columns, authorColumns } = prepared.comments;
      const inner = [
        ...columns.map((column, index) => `c.${this.comments.column(column.property as keyof Comment & string).name} AS v${index}`),
        ...authorColumns.map((column, index) => `u.${this.users.column(column.property as keyof User & string).name} AS v${columns.length + index}`),
      ];
      const values = inner.map((_, index) => `x.v${index}`);
      const join = authorColumns.length > 0 ? sql.raw(' JOIN users u ON u.id = c.author_id') : sql.empty;
      const visible = commentCondition(commentScope);
      const from = sql`FROM (SELECT ${sql.raw(inner.join(', '))} FROM comments c${join} WHERE c.post_id = ${id}${visible ? sql` AND ${visible}` : sql.empty} ORDER BY c.id ASC LIMIT ${first}) x`;
      select.push(sql`${dialect.jsonRows(values, from)} AS planned_comments`);
    }
    if (prepared.tags) {
      const values = prepared.tags.map((column) => `g.${this.tags.column(column.property as keyof Tag & string).name}`);
      select.push(sql`${dialect.jsonRows(values, sql`FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = ${id}`)} AS planned_tags`);
    }
    const join = prepared.authorProperties ? sql.raw(' JOIN users a ON a.id = p.author_id') : sql.empty;
    const visible = postCondition(postScope);
    return sql`SELECT ${sql.join(select)} FROM posts p${join} WHERE p.id = ${id}${visible ? sql` AND ${visible}` : sql.empty}`;
  }

  private commentsOf(value: unknown, columns: readonly TupleColumn[], authorColumns: readonly TupleColumn[]): Record<string, unknown>[] {
    const rows = parseTuples(value);
    const comments = rows.map((tuple) => {
      const comment = hydrate(tuple, columns, 0);
      if (authorColumns.length > 0) comment.author = hydrate(tuple, authorColumns, columns.length);
      return comment;
    });
    // Oldest first, as the statement's ORDER BY (an aggregate keeps no order the standard promises).
    return comments.sort((a, b) => (a.id as number) - (b.id as number));
  }
}

interface Related {
  author?: Record<string, unknown>;
  comments?: Record<string, unknown>[];
  tags?: Record<string, unknown>[];
}

/** ReadPolicy.postScope as a condition on `p` (PostsRepository's own literals), null: every post. */
function postCondition(scope: PostScope): Fragment | null {
  switch (scope.kind) {
    case 'public':
      return sql`p.status = 'published'`;
    case 'public-or-own':
      return sql`(p.status = 'published' OR p.author_id = ${scope.ownerId})`;
    case 'all':
      return null;
  }
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

/** An Int argument's value for this request; undefined when it is absent, null or not an Int (graphql-js would answer). */
function intOf(value: ArgumentValue, variables: Record<string, unknown> | undefined): number | undefined {
  if ('literal' in value) return Number.isSafeInteger(value.literal) && Math.abs(value.literal) <= MAX_INT32 ? value.literal : undefined;
  if ('absent' in value) return undefined;
  const given = variables?.[value.variable];
  return typeof given === 'number' && Number.isInteger(given) && Math.abs(given) <= MAX_INT32 ? given : undefined;
}

/** Whether a variable was not given at all (the argument's default then applies). */
function isUnset(value: ArgumentValue, variables: Record<string, unknown> | undefined): boolean {
  return 'variable' in value && (variables === undefined || !Object.hasOwn(variables, value.variable));
}

function parseTuples(value: unknown): unknown[][] {
  if (value === null || value === undefined) return [];
  return JSON.parse(String(value)) as unknown[][];
}

function hydrate(tuple: readonly unknown[], columns: readonly TupleColumn[], offset: number): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (let index = 0; index < columns.length; index++) {
    const column = columns[index];
    const value = tuple[offset + index];
    item[column.property] = value === null ? null : column.timestamp ? toDate(value) : column.boolean ? Boolean(value) : value;
  }
  return item;
}

function tuplesOf(value: unknown, columns: readonly TupleColumn[]): Record<string, unknown>[] {
  return parseTuples(value).map((tuple) => hydrate(tuple, columns, 0));
}

/** In code-point order, as TagsRepository sorts a post's tags. */
function bySlug(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const x = a.slug as string;
  const y = b.slug as string;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The response object of `source` for these fields, as graphql-js completes it. */
function complete(fields: readonly PlannedField[], source: Record<string, unknown>, related: Related): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const field of fields) {
    switch (field.kind) {
      case 'typename':
        result[field.key] = field.typename;
        break;
      case 'leaf': {
        const value = source[field.property];
        if (value === null || value === undefined) {
          if (field.nonNull) declined();
          result[field.key] = null;
        } else {
          const serialized = field.type.serialize(value);
          if (serialized === undefined) declined();
          result[field.key] = serialized;
        }
        break;
      }
      case 'object': {
        const author = field.relation === 'author' ? (source.author as Record<string, unknown> | undefined) ?? related.author : undefined;
        if (!author) return declined();
        result[field.key] = complete(field.fields, author, {});
        break;
      }
      case 'list':
        result[field.key] = (related[field.relation] ?? []).map((item) => complete(field.fields, item, {}));
        break;
    }
  }
  return result;
}
