import type { FieldNode, GraphQLSchema } from 'graphql';
import { ReadPolicy } from '../../../auth/read-policy.js';
import { commentsTag, POSTS_TAG, postTag, recordReadIds, recordReadTags } from '../../../common/cache/read-tags.js';
import { decodeListCursor, DEFAULT_PAGE_SIZE, encodeTimeCursor, MAX_PAGE_SIZE, type PageRequest } from '../../../common/pagination/cursor.js';
import { type ListLocale, listLocale, type LocaleSettings } from '../../../common/i18n/locale-lookup.js';
import type { Sql } from '../../../common/persistence/sql.js';
import { type Fragment, sql } from '../../../common/persistence/sql-template.js';
import { MAX_LOCALE_LENGTH, MAX_POST_CURSOR_LENGTH } from '../../../posts/dto/list-posts.query.js';
import { bestOfGroup, GROUP_OF } from '../../../posts/posts.repository.js';
import { complete, declined, intOf, isNull, isUnset, type PlannedRequest, type RootPlanner, stringOf } from './plan-completion.js';
import { type ArgumentValue, argumentsOf, decline, keyOf, leaf, objectType, type PlannedField, plainFields, selectionsOf, typename, uniqueKeys, type Variables } from './plan-walk.js';
import {
  commentsFirstOf,
  LIST_TIME,
  newPostColumns,
  type PlanTables,
  postFields,
  type PostTuple,
  postTupleOf,
  postTupleSelect,
  postsOfTuples,
  type TupleRequest,
} from './post-selection.js';

/** The plan of `posts(first, after, authorId, locale)`: the connection's fields and what its statement reads. */
export interface PostsPlan {
  key: string;
  first: ArgumentValue;
  after: ArgumentValue;
  authorId: ArgumentValue;
  locale: ArgumentValue;
  fields: PlannedField[];
  tuple: PostTuple;
  /** Whether totalCount is selected (a COUNT in the statement). */
  total: boolean;
  /** Whether pageInfo.hasPreviousPage is selected (an EXISTS in the statement, with `after`). */
  previous: boolean;
}

const PAGE_INFO_FIELDS = new Set(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor']);

/**
 * The plain public list, `posts(first, after, authorId, locale)` (issue 43), in ONE statement per
 * request: the page's posts (newest group publication first, then id, keyset-paged on both, as
 * PostsRepository.publicPage) with their authors, tags and comments (with their authors, in the
 * reader's comment scope, as the post page's) as JSON tuples, and, when selected, the
 * list's count (PostsRepository.countVisible) and whether posts come before the page (its
 * anyPublicFrom). The public list holds the published posts whoever reads (the scope of
 * PostFinder.scope without `status`), so no reader's id is a parameter. With translations
 * (SUPPORTED_LOCALES > 1) the list's language is chosen as PostFinder.languagesOf chooses it (the
 * `locale` argument, else Accept-Language, else DEFAULT_LOCALE) and each group shows its best post
 * (the repository's bestOfGroup), one statement text per chain. Anything past the plain list
 * (search, tag, status, dates, orderBy, commentCount) runs as before; so does a request
 * whose `first`, `authorId`, `after` or `locale` the resolver would refuse, with its error.
 */
export class PostsPlanner implements RootPlanner<PostsPlan> {
  private readonly translated: boolean;

  constructor(
    private readonly db: Sql,
    private readonly tables: PlanTables,
    private readonly readPolicy: ReadPolicy,
    private readonly locales: LocaleSettings,
  ) {
    this.translated = locales.supportedLocales.length > 1;
  }

  plan(schema: GraphQLSchema, root: FieldNode, variables: Variables): PostsPlan {
    const args = argumentsOf(root, { first: 'Int', after: 'String', authorId: 'Int', locale: 'String' }, variables);
    const selection = newPostColumns();
    const connection = objectType(schema, 'PostConnection');
    const edge = objectType(schema, 'PostEdge');
    const pageInfo = objectType(schema, 'PageInfo');
    let total = false;
    let previous = false;
    const fields: PlannedField[] = [];
    for (const field of plainFields(selectionsOf(root))) {
      const key = keyOf(field);
      const name = field.name.value;
      if (name === '__typename') {
        fields.push(typename(field, 'PostConnection'));
      } else if (name === 'totalCount') {
        fields.push(leaf(connection, field));
        total = true;
      } else if (name === 'nodes') {
        if (field.arguments?.length) decline();
        fields.push({ key, kind: 'list', relation: 'nodes', fields: postFields(schema, field, selection, variables) });
      } else if (name === 'edges') {
        if (field.arguments?.length) decline();
        const edgeFields: PlannedField[] = [];
        for (const child of plainFields(selectionsOf(field))) {
          const childName = child.name.value;
          if (childName === '__typename') edgeFields.push(typename(child, 'PostEdge'));
          // rank and snippet are a search's: null on the plain list, as its edges carry none.
          else if (childName === 'cursor' || childName === 'rank' || childName === 'snippet') edgeFields.push(leaf(edge, child));
          else if (childName === 'node') {
            if (child.arguments?.length) decline();
            edgeFields.push({ key: keyOf(child), kind: 'object', relation: 'node', fields: postFields(schema, child, selection, variables) });
          } else decline();
        }
        uniqueKeys(edgeFields);
        fields.push({ key, kind: 'list', relation: 'edges', fields: edgeFields });
      } else if (name === 'pageInfo') {
        if (field.arguments?.length) decline();
        const infoFields: PlannedField[] = [];
        for (const child of plainFields(selectionsOf(field))) {
          const childName = child.name.value;
          if (childName === '__typename') infoFields.push(typename(child, 'PageInfo'));
          else if (PAGE_INFO_FIELDS.has(childName)) infoFields.push(leaf(pageInfo, child));
          else decline();
          if (childName === 'hasPreviousPage') previous = true;
        }
        uniqueKeys(infoFields);
        fields.push({ key, kind: 'object', relation: 'pageInfo', fields: infoFields });
      } else {
        decline();
      }
    }
    uniqueKeys(fields);
    const absent = { absent: true } as const;
    return {
      key: keyOf(root),
      first: args.first ?? absent,
      after: args.after ?? absent,
      authorId: args.authorId ?? absent,
      locale: args.locale ?? absent,
      fields,
      tuple: postTupleOf(this.tables, selection),
      total,
      previous,
    };
  }

  async answer(plan: PostsPlan, request: PlannedRequest): Promise<unknown> {
    const { variables } = request;
    // first: Int = 20, 1-100, an explicit null refused (FirstArg): outside that, the resolver's validation answers.
    const first = isUnset(plan.first, variables) ? DEFAULT_PAGE_SIZE : intOf(plan.first, variables);
    if (first === undefined || first < 1 || first > MAX_PAGE_SIZE) return declined();
    let authorId: number | undefined;
    if (!isUnset(plan.authorId, variables) && !isNull(plan.authorId, variables)) {
      authorId = intOf(plan.authorId, variables);
      if (authorId === undefined || authorId < 1) return declined();
    }
    let page: PageRequest = { limit: first };
    if (!isUnset(plan.after, variables) && !isNull(plan.after, variables)) {
      const after = stringOf(plan.after, variables);
      if (after === undefined || after.length > MAX_POST_CURSOR_LENGTH) return declined();
      try {
        page = { limit: first, ...decodeListCursor(after, 'after') };
      } catch {
        // Not a cursor the list issued: the resolver answers its BAD_USER_INPUT.
        return declined();
      }
    }
    const languages = this.languagesOf(plan, request);
    const tupleRequest: TupleRequest = {
      commentsFirst: plan.tuple.comments ? commentsFirstOf(plan.tuple.comments.first, variables) : 0,
      commentScope: this.readPolicy.commentScope(request.actor),
    };
    // As PostsRepository records a list and a count, TagsRepository a post's tags and CommentsRepository its comments.
    recordReadTags(POSTS_TAG);
    const [row] = await this.db.rows<Record<string, unknown>>(this.statement(plan, page, authorId, languages, tupleRequest));
    const posts = postsOfTuples(row.planned_posts, plan.tuple);
    const hasNextPage = posts.length > first;
    if (hasNextPage) posts.length = first;
    if (plan.tuple.tags) recordReadIds(postTag, posts.map((post) => post.id as number));
    if (plan.tuple.comments) recordReadIds(commentsTag, posts.map((post) => post.id as number));
    const edges = posts.map((post) => ({ cursor: encodeTimeCursor(post[LIST_TIME]!, post.id as number), node: post }));
    const connection = {
      edges,
      nodes: posts,
      pageInfo: {
        hasNextPage,
        hasPreviousPage: page.after !== undefined && Number(row.planned_previous) === 1,
        startCursor: edges.length > 0 ? edges[0].cursor : null,
        endCursor: edges.length > 0 ? edges[edges.length - 1].cursor : null,
      },
      totalCount: plan.total ? Number(row.planned_total) : undefined,
    };
    return complete(plan.fields, connection);
  }

  /**
   * The list's language, as PostFinder.languagesOf: undefined with a single supported locale (a
   * locale given must still be one of them); a locale the resolver refuses declines.
   */
  private languagesOf(plan: PostsPlan, request: PlannedRequest): ListLocale | undefined {
    let given: string | undefined;
    if (!isUnset(plan.locale, request.variables) && !isNull(plan.locale, request.variables)) {
      given = stringOf(plan.locale, request.variables);
      // UTF-16 length: never less than the validator's count, so a locale it refuses is never answered here.
      if (given === undefined || given.length > MAX_LOCALE_LENGTH) return declined();
    }
    const chosen = listLocale(given, request.acceptLanguage, this.locales);
    if (chosen === null) return declined();
    return this.translated ? chosen : undefined;
  }

  /** The one statement: the page as JSON tuples; the count and whether posts come before it, when selected. */
  private statement(plan: PostsPlan, page: PageRequest, authorId: number | undefined, languages: ListLocale | undefined, tupleRequest: TupleRequest): Fragment {
    const { select, join, values } = postTupleSelect(this.tables, plan.tuple, tupleRequest);
    const scope = (alias: string): Fragment[] => {
      const where = [sql.raw(`${alias}.status = 'published'`)];
      if (authorId !== undefined) where.push(sql`${sql.raw(alias)}.author_id = ${authorId}`);
      return where;
    };
    const where = scope('t');
    if (languages?.perGroup) where.push(bestOfGroup(languages.chain, scope('b')));
    if (page.after !== undefined) where.push(sql`(t.group_published_at, t.id) < ${this.keyOf(page)}`);
    const from = sql`FROM (SELECT ${select} FROM posts t${join}${sql.where(where)} ORDER BY t.group_published_at DESC, t.id DESC LIMIT ${page.limit + 1}) x`;
    const columns = [sql`${this.tables.dialect.jsonRows(values, from)} AS planned_posts`];
    // As PostsRepository.countVisible: a group counts once in a language.
    if (plan.total) columns.push(sql`(SELECT ${sql.raw(languages?.perGroup ? `COUNT(DISTINCT ${GROUP_OF('t')})` : 'COUNT(*)')} FROM posts t${sql.where(scope('t'))}) AS planned_total`);
    if (plan.previous && page.after !== undefined) {
      const before = [...scope('t'), sql`(t.group_published_at, t.id) >= ${this.keyOf(page)}`];
      columns.push(sql`CASE WHEN EXISTS (SELECT 1 FROM posts t${sql.where(before)}) THEN 1 ELSE 0 END AS planned_previous`);
    }
    return sql`SELECT ${sql.join(columns)}`;
  }

  /** The (group_published_at, id) of a cursor, as PostsRepository.keyOf: its time, or (an id-only cursor) that post's. */
  private keyOf(page: PageRequest): Fragment {
    if (page.afterTime !== undefined) return sql`(${this.db.timestamp(page.afterTime)}, ${page.after})`;
    return sql`((SELECT k.group_published_at FROM posts k WHERE k.id = ${page.after}), ${page.after})`;
  }
}
