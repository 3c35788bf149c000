import type { FieldNode, GraphQLSchema } from 'graphql';
import { type CommentScope, type PostScope, ReadPolicy } from '../../../auth/read-policy.js';
import { commentsTag, POSTS_TAG, postTag, recordReadIds, recordReadTags } from '../../../common/cache/read-tags.js';
import type { Sql } from '../../../common/persistence/sql.js';
import { type Fragment, sql } from '../../../common/persistence/sql-template.js';
import { DEFAULT_COMMENTS_PAGE_SIZE } from '../../../comments/models/comment.inputs.js';
import {
  bySlug,
  complete,
  declined,
  hydrate,
  intOf,
  parseTuples,
  type PlannedRequest,
  type RootPlanner,
  type TupleColumn,
} from './plan-completion.js';
import { type ArgumentValue, argumentsOf, decline, keyOf, type PlannedField, type Variables } from './plan-walk.js';
import {
  type CommentsTuple,
  commentsFirstOf,
  commentsOfTuples,
  commentsTupleOf,
  commentsTuples,
  newPostColumns,
  type PlanTables,
  postFields,
  type PostColumns,
} from './post-selection.js';

/** The plan of `post(id:)`: the post's fields and what its statement reads, in the order of its tuples. */
export interface PostPlan {
  key: string;
  id: ArgumentValue;
  fields: PlannedField[];
  selection: PostColumns;
  comments?: CommentsTuple;
  tags?: TupleColumn[];
}

/**
 * `post(id:)` (issue 43) with its scalars, author, comments (with their authors) and tags in ONE
 * statement per request. The read policy is applied in the statement, as the repositories apply
 * it: the post's scope (ReadPolicy.postScope) and the comments' (commentScope) are chosen
 * conditions with the reader's id as a parameter, so each scope kind has one statement text,
 * prepared once. The read tags recorded are those of the resolvers' reads (PostsRepository,
 * CommentsRepository, TagsRepository), so the response cache keeps and drops the answer alike.
 */
export class PostPlanner implements RootPlanner<PostPlan> {
  constructor(
    private readonly db: Sql,
    private readonly tables: PlanTables,
    private readonly readPolicy: ReadPolicy,
    private readonly translated: boolean,
  ) {}

  plan(schema: GraphQLSchema, root: FieldNode, variables: Variables): PostPlan {
    const { id } = argumentsOf(root, { id: 'Int' }, variables);
    if (id === undefined) decline();
    const selection = newPostColumns();
    const fields = postFields(schema, root, selection, variables);
    const { tables } = this;
    return {
      key: keyOf(root),
      id: id!,
      fields,
      selection,
      comments: selection.comments && commentsTupleOf(tables, selection.comments),
      tags: selection.tagColumns && tables.tuple(tables.tags, selection.tagColumns),
    };
  }

  async answer(plan: PostPlan, request: PlannedRequest): Promise<unknown> {
    const id = intOf(plan.id, request.variables);
    if (id === undefined) return declined();
    const first = plan.comments ? commentsFirstOf(plan.comments.first, request.variables) : DEFAULT_COMMENTS_PAGE_SIZE;
    const statement = this.statement(plan, id, first, this.readPolicy.postScope(request.actor), this.readPolicy.commentScope(request.actor));
    recordReadIds(postTag, [id]);
    if (this.translated) recordReadTags(POSTS_TAG);
    const [row] = await this.db.rows<Record<string, unknown>>(statement);
    if (!row) return null;
    if (plan.comments) recordReadIds(commentsTag, [id]);
    const { posts, users } = this.tables;
    const post = posts.fromRow(row, '', plan.selection.columns) as unknown as Record<string, unknown>;
    if (plan.selection.authorColumns) post.author = users.fromRow(row, 'a_', plan.selection.authorColumns);
    if (plan.comments) post.comments = commentsOfTuples(row.planned_comments, plan.comments);
    if (plan.tags) post.tags = parseTuples(row.planned_tags).map((tuple) => hydrate(tuple, plan.tags!, 0)).sort(bySlug);
    return complete(plan.fields, post);
  }

  /** The one statement: the post (and its author) by id within the reader's scope, its comments and tags as JSON tuples. */
  private statement(plan: PostPlan, id: number, first: number, postScope: PostScope, commentScope: CommentScope): Fragment {
    const { posts, users } = this.tables;
    const { selection } = plan;
    const select: Fragment[] = [sql.raw(posts.selectList('p', '', selection.columns))];
    if (selection.authorColumns) select.push(sql.raw(users.selectList('a', 'a_', selection.authorColumns)));
    if (plan.comments) select.push(sql`${commentsTuples(this.tables, plan.comments, sql`${id}`, first, commentScope)} AS planned_comments`);
    if (plan.tags) select.push(sql`${this.tables.tagsOf(plan.tags, sql`${id}`)} AS planned_tags`);
    const join = selection.authorColumns ? sql.raw(' JOIN users a ON a.id = p.author_id') : sql.empty;
    const visible = postCondition(postScope);
    return sql`SELECT ${sql.join(select)} FROM posts p${join} WHERE p.id = ${id}${visible ? sql` AND ${visible}` : sql.empty}`;
  }
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
