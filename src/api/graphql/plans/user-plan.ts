import type { FieldNode, GraphQLSchema } from 'graphql';
import { ReadPolicy } from '../../../auth/read-policy.js';
import { commentsTag, POSTS_TAG, postTag, recordReadIds, recordReadTags } from '../../../common/cache/read-tags.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../../common/pagination/cursor.js';
import type { Sql } from '../../../common/persistence/sql.js';
import { type Fragment, sql } from '../../../common/persistence/sql-template.js';
import { complete, declined, intOf, isUnset, type PlannedRequest, type RootPlanner } from './plan-completion.js';
import {
  addColumn,
  type ArgumentValue,
  argumentsOf,
  COLUMN_FIELDS,
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
import { commentsFirstOf, newPostColumns, type PlanTables, postFields, type PostTuple, postTupleOf, postTupleSelect, postsOfTuples, type TupleRequest } from './post-selection.js';

/** The plan of `user(id:)`: the user's fields and what its statement reads. */
export interface UserPlan {
  key: string;
  id: ArgumentValue;
  fields: PlannedField[];
  columns: string[];
  /** User.posts(first): its posts' tuple and `first`; undefined when not selected. */
  posts?: { tuple: PostTuple; first: ArgumentValue };
}

/**
 * `user(id:)` (issue 43) in ONE statement: the user's column fields (not email nor
 * commentsBlocked, whose visibility is the resolvers' logic) and User.posts(first), their newest
 * public posts (PostsRepository.publicPagesFor: published whoever reads, newest group
 * publication first, then id) with those posts' authors, tags and comments as JSON tuples.
 */
export class UserPlanner implements RootPlanner<UserPlan> {
  constructor(
    private readonly db: Sql,
    private readonly tables: PlanTables,
    private readonly readPolicy: ReadPolicy,
  ) {}

  plan(schema: GraphQLSchema, root: FieldNode, variables: Variables): UserPlan {
    const { id } = argumentsOf(root, { id: 'Int' }, variables);
    if (id === undefined) decline();
    const user = objectType(schema, 'User');
    const fields: PlannedField[] = [];
    const columns = ['id'];
    let posts: UserPlan['posts'];
    for (const field of plainFields(selectionsOf(root))) {
      const name = field.name.value;
      if (name === '__typename') {
        fields.push(typename(field, 'User'));
      } else if (COLUMN_FIELDS.User.has(name)) {
        fields.push(leaf(user, field));
        addColumn(columns, name);
      } else if (name === 'posts' && posts === undefined) {
        const { first } = argumentsOf(field, { first: 'Int' }, variables);
        const selection = newPostColumns();
        const postsFields = postFields(schema, field, selection, variables);
        posts = { tuple: postTupleOf(this.tables, selection), first: first ?? { absent: true } };
        fields.push({ key: keyOf(field), kind: 'list', relation: 'posts', fields: postsFields });
      } else {
        decline();
      }
    }
    uniqueKeys(fields);
    return { key: keyOf(root), id: id!, fields, columns, posts };
  }

  async answer(plan: UserPlan, request: PlannedRequest): Promise<unknown> {
    const { variables } = request;
    const id = intOf(plan.id, variables);
    if (id === undefined) return declined();
    let first = DEFAULT_PAGE_SIZE;
    if (plan.posts) {
      const given = isUnset(plan.posts.first, variables) ? DEFAULT_PAGE_SIZE : intOf(plan.posts.first, variables);
      // 1-100, an explicit null refused (FirstArg): outside that, the resolver's validation answers.
      if (given === undefined || given < 1 || given > MAX_PAGE_SIZE) return declined();
      first = given;
    }
    const tupleRequest: TupleRequest = {
      commentsFirst: plan.posts?.tuple.comments ? commentsFirstOf(plan.posts.tuple.comments.first, variables) : 0,
      commentScope: this.readPolicy.commentScope(request.actor),
    };
    const [row] = await this.db.rows<Record<string, unknown>>(this.statement(plan, id, first, tupleRequest));
    if (!row) return null;
    const user = this.tables.users.fromRow(row, '', plan.columns) as unknown as Record<string, unknown>;
    if (plan.posts) {
      // As PostsRepository records a list, and TagsRepository a post's tags.
      recordReadTags(POSTS_TAG);
      const posts = postsOfTuples(row.planned_posts, plan.posts.tuple);
      if (plan.posts.tuple.tags) recordReadIds(postTag, posts.map((post) => post.id as number));
      if (plan.posts.tuple.comments) recordReadIds(commentsTag, posts.map((post) => post.id as number));
      user.posts = posts;
    }
    return complete(plan.fields, user);
  }

  private statement(plan: UserPlan, id: number, first: number, tupleRequest: TupleRequest): Fragment {
    const select: Fragment[] = [sql.raw(this.tables.users.selectList('u', '', plan.columns))];
    if (plan.posts) {
      const { select: inner, join, values } = postTupleSelect(this.tables, plan.posts.tuple, tupleRequest);
      const from = sql`FROM (SELECT ${inner} FROM posts t${join} WHERE t.status = 'published' AND t.author_id = ${id} ORDER BY t.group_published_at DESC, t.id DESC LIMIT ${first}) x`;
      select.push(sql`${this.tables.dialect.jsonRows(values, from)} AS planned_posts`);
    }
    return sql`SELECT ${sql.join(select)} FROM users u WHERE u.id = ${id}`;
  }
}
