import { Injectable } from '@nestjs/common';
import type { CommentStatus, PostStatus, PostVisibility } from '../auth/read-policy.js';
import { encodeTimeCursor, type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { type Companion, type Join, type ReadScope, ResourceRepository } from '../common/persistence/resource-repository.js';
import { toDate } from '../common/persistence/entity-table.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import { literal } from '../common/persistence/dialect.js';
import type { ListLocale } from '../common/i18n/locale-lookup.js';
import type { TextQuery } from '../common/persistence/text-search.js';
import type { User } from '../users/user.entity.js';
import { UsersRepository } from '../users/users.repository.js';
import { AppConfig } from '../config/app-config.js';
import { type GroupMember, Post } from './post.entity.js';
import type { PostKeyset, PostOrderPlan } from './post-order.js';
import { POSTS_TAG, postTag, recordReadIds, recordReadTags } from '../common/cache/read-tags.js';

/**
 * What a filtered list shows (GET /posts with tag, q, publishedAfter/Before or sort): the read
 * policy's scope (the public posts, or one state of one owner's or everyone's), and the filters.
 */
export interface PostFilter {
  /** A non-public state; none: the public posts. */
  status?: PostStatus;
  /** Only this author's posts. */
  authorId?: number;
  /** Tag slugs: posts that have every one. */
  tags: readonly string[];
  search: TextQuery | null;
  /** The list's language (CONTRACT §15): one post per translation group, in the best locale of its chain; none: every post. */
  languages?: ListLocale;
  /** Published at or after (inclusive). */
  publishedAfter?: Date;
  /** Published before (exclusive). */
  publishedBefore?: Date;
}

/** A post of a filtered list, with its rank and snippet when the list is a search. */
export interface PostHit {
  post: Post;
  rank: number | null;
  snippet: string | null;
}

/** What a sitemap reads of a public post: what PUBLIC_POST_URL needs (its locale too), and when it last changed (no body). */
export interface PostAddress {
  id: number;
  slug: string;
  locale: string;
  publishedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
  /** Its translation group (COALESCE(translation_group_id, id)). */
  groupId: number;
}

/** A row of publicAddresses and publicTranslationsOfPage. */
interface AddressRow {
  id: number | string;
  slug: string;
  locale: string;
  published_at: unknown;
  created_at: unknown;
  updated_at: unknown;
  group_id: number | string;
}

function toAddress(row: AddressRow): PostAddress {
  return {
    id: Number(row.id),
    slug: row.slug,
    locale: row.locale,
    publishedAt: row.published_at === null ? null : toDate(row.published_at),
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    groupId: Number(row.group_id),
  };
}

/** The cursor of a public post: its group's publication time, then its id (the public list's order). */
export const publicCursor = (post: Post) => encodeTimeCursor(post.groupPublishedAt ?? post.publishedAt ?? post.createdAt, post.id);

/** PostSlugsRepository.claim of the new row's slug, as the guard of insertClaiming. */
const CLAIM_FROM_ROW: Companion<Post> = (row, source) =>
  sql`INSERT INTO post_slugs (slug, post_id) SELECT ${sql.raw(row.column('slug'))}, ${sql.raw(row.column('id'))} FROM ${source} ON CONFLICT (slug) DO NOTHING RETURNING slug`;

/** A post's translation group: its translation_group_id, NULL for a group of its own (its id); the expression idx_posts_translation_locale indexes. */
export const GROUP_OF = (alias: string) => `COALESCE(${alias}.translation_group_id, ${alias}.id)`;

/**
 * The other posts of a post's group, read with it: `locale id status author_id` each (a locale
 * has no space), sorted here by locale (code points) then id.
 */
function groupMembersColumn(db: Sql) {
  return {
    property: 'groupMembers',
    name: 'group_members',
    expression: (alias: string) =>
      db.dialect.arrayOf(`m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id`, `FROM posts m WHERE ${GROUP_OF('m')} = ${GROUP_OF(alias)} AND m.id <> ${alias}.id`),
    read: (value: unknown): GroupMember[] =>
      db.dialect
        .readArray(value)
        .map((entry) => entry.split(' '))
        .map(([locale, id, status, authorId]) => ({ locale, id: Number(id), status: status as PostStatus, authorId: Number(authorId) }))
        .sort(byLocaleThenId),
  };
}

/** By locale in code points (PostgreSQL's collation may order them otherwise), then id. */
function byLocaleThenId(a: { locale: string; id: number }, b: { locale: string; id: number }): number {
  return a.locale < b.locale ? -1 : a.locale > b.locale ? 1 : a.id - b.id;
}

/** The public posts, as a literal (see the class). */
const PUBLIC = sql.raw("t.status = 'published'");
const PUBLIC_OF = (alias: string) => sql.raw(`${alias}.status = 'published'`);

/** What the lists read besides the post: its group's publication time (their order and cursors). */
const LIST_TIME = 'list_time';

/**
 * A post of a list is the one its translation group shows (CONTRACT §15) when no other post of
 * the group that the list holds (`holds`, conditions over \`b\`) comes before it: a better locale
 * of the chain (its position; any other locale after them all), then a lower id. Each group of
 * the list is then shown once, by the same post on every page (keyset paging stays exact); the
 * group's posts are found through idx_posts_translation_locale. The chain's locales are
 * SUPPORTED_LOCALES, written as literals: one statement text per chain.
 */
export function bestOfGroup(chain: readonly string[], holds: readonly Fragment[]): Fragment {
  const rank = (alias: string) => `CASE ${alias}.locale ${chain.map((locale, index) => `WHEN ${literal(locale)} THEN ${index}`).join(' ')} ELSE ${chain.length} END`;
  const before = sql.raw(`(${rank('b')}, b.id) < (${rank('t')}, t.id)`);
  return sql`NOT EXISTS (SELECT 1 FROM posts b WHERE ${sql.raw(GROUP_OF('b'))} = ${sql.raw(GROUP_OF('t'))} AND b.id <> t.id AND ${sql.join([...holds, before], ' AND ')})`;
}

/**
 * The posts' SQL. Lists and counts read one side of the read policy each: the public posts
 * (`status = 'published'` written as a literal, so PostgreSQL uses the partial indexes
 * idx_posts_public and idx_posts_public_author) in (published_at, id) order, or the posts of one
 * non-public state (by author_id for an owner, else the primary key), of one owner unless the reader reads all.
 */
@Injectable()
export class PostsRepository extends ResourceRepository<Post> {
  /** A post's author, joined into its row (`post.author`). */
  readonly withAuthor: Join<Post, User>;
  /** Its columns under the alias `p`, without the computed ones (Tag.posts: the tags come from Post.tags). */
  private readonly plainColumns: Fragment;
  /** The columns of a list's read: the post's, and its group's publication time (LIST_TIME). */
  private readonly listSelect: Fragment;

  /** Translations exist only with more than one supported locale: reads of one post then depend on its group (see recordReads). */
  private readonly translated: boolean;

  constructor(
    db: Sql,
    users: UsersRepository,
    private readonly config: AppConfig,
  ) {
    super(db, Post, [
      {
        // Every post read carries its tags' slugs and ids in the same statement (no round trip of its own), as `slug id`.
        property: 'tags',
        name: 'tags',
        expression: (alias) => db.dialect.arrayOf(`g.slug || ' ' || g.id`, `FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = ${alias}.id`),
        read: (value, item) => {
          // Sorted here, in code-point order (an ORDER BY would follow PostgreSQL's collation, which may weigh `-` differently).
          const pairs = db.dialect.readArray(value).map((pair) => pair.split(' ')).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          (item as Post).tagIds = pairs.map(([, id]) => Number(id));
          return pairs.map(([slug]) => slug);
        },
      },
      ...(config.supportedLocales.length > 1 ? [groupMembersColumn(db)] : []),
    ]);
    this.translated = config.supportedLocales.length > 1;
    this.withAuthor = { property: 'author', table: users.table, foreignKey: 'authorId' };
    this.plainColumns = sql.raw(this.table.selectList('p'));
    this.listSelect = sql`${this.select}, t.group_published_at AS ${sql.raw(LIST_TIME)}`;
    this.lockDueClause = sql.raw(db.dialect.lockRows({ skipLocked: true }));
    this.lockClause = sql.raw(db.dialect.lockRows());
  }

  private readonly lockDueClause: Fragment;
  private readonly lockClause: Fragment;

  /** A post read by id is tagged with it; every other read of posts (a list, a search, a count) with `posts`. */
  protected override recordReads(read: ReadScope): void {
    if (read.kind === 'ids') recordReadIds(postTag, read.ids);
    // A post's translations are other posts, and a new one names only itself in its events: with
    // translations, a read of posts by id is dropped by any write of a post, as a list is.
    if (read.kind !== 'ids' || this.translated) recordReadTags(POSTS_TAG);
  }

  /** Whether `insertClaiming` is open to this dialect (one statement: PostgreSQL). */
  get insertsClaiming(): boolean {
    return this.sql.dialect.writesWith;
  }

  /**
   * A new post whose row, the claim of its slug in post_slugs and `companions` (its revision 1,
   * audit entry and events) are one statement. When another post has or had the slug the claim
   * writes nothing, and nor does any companion: the caller claims another slug and records them
   * itself (`claimed` false).
   */
  async insertClaiming(values: Omit<Partial<Post>, 'id' | 'version'>, companions: readonly Companion<Post>[], executor: Executor): Promise<{ post: Post; claimed: boolean }> {
    const { row, held } = await this.insertGuarded(values, CLAIM_FROM_ROW, companions, executor);
    return { post: row, claimed: held };
  }

  /** What a translation needs of the post it translates: what the read policy looks at, its locale and its group. */
  async translationSourceOf(id: number, executor: Executor): Promise<(PostVisibility & { locale: string; groupId: number; groupPublishedAt: Date | null }) | null> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const [row] = await this.sql.rows<{ status: PostStatus; author_id: number; locale: string; translation_group_id: number | string | null; group_published_at: unknown }>(
      sql`SELECT status, author_id, locale, translation_group_id, group_published_at FROM posts WHERE id = ${id}`,
      executor,
    );
    if (!row) return null;
    const groupPublishedAt = row.group_published_at === null ? null : toDate(row.group_published_at);
    return { status: row.status, authorId: row.author_id, locale: row.locale, groupId: Number(row.translation_group_id ?? id), groupPublishedAt };
  }

  /**
   * A group's first publication at `at` (CONTRACT §15: its place in the lists): the other posts
   * of the group get it unless one of them was published before. Their version and updated_at
   * stay: nothing of what they show changes.
   */
  async placeGroup(groupId: number, at: Date, exceptId: number, executor: Executor): Promise<void> {
    const time = this.sql.timestamp(at);
    await this.sql.rows(
      sql`UPDATE posts SET group_published_at = ${time} WHERE ${sql.raw(GROUP_OF('posts'))} = ${groupId} AND id <> ${exceptId} AND (group_published_at IS NULL OR group_published_at > ${this.sql.timestamp(at)})`,
      executor,
    );
  }

  /** The other posts of a post's group, whatever their state (callers apply the read policy), by locale: for the answer to a write. */
  async groupMembersOf(id: number, executor: Executor): Promise<GroupMember[]> {
    this.recordReads({ kind: 'list' });
    const rows = await this.sql.rows<{ locale: string; id: number | string; status: PostStatus; author_id: number | string }>(
      sql`SELECT m.locale, m.id, m.status, m.author_id FROM posts m JOIN posts k ON ${sql.raw(GROUP_OF('m'))} = ${sql.raw(GROUP_OF('k'))} AND m.id <> k.id WHERE k.id = ${id}`,
      executor,
    );
    return rows.map((row) => ({ locale: row.locale, id: Number(row.id), status: row.status, authorId: Number(row.author_id) })).sort(byLocaleThenId);
  }

  /**
   * For batching (Post.translations): the other posts of each post's group, whatever their state
   * (callers apply the read policy), by locale, in one statement.
   */
  async translationsOf(ids: readonly number[]): Promise<Map<number, Post[]>> {
    this.recordReads({ kind: 'list' });
    const byPost = new Map<number, Post[]>(ids.map((id) => [id, []]));
    if (ids.length === 0) return byPost;
    const statement = sql`SELECT o.id AS of_post_id, ${this.select} FROM posts o JOIN ${this.from} ON ${sql.raw(GROUP_OF('t'))} = ${sql.raw(GROUP_OF('o'))} AND t.id <> o.id WHERE o.id IN (${sql.in(ids)})`;
    for (const row of await this.sql.rows<Record<string, unknown>>(statement)) byPost.get(Number(row.of_post_id))?.push(this.fromRow(row));
    for (const list of byPost.values()) list.sort(byLocaleThenId);
    return byPost;
  }

  /**
   * What the read policy looks at of a post (its status and author), for a door that shows
   * something else of it (its comments): neither its text nor its tags are read.
   */
  async visibilityOf(id: number): Promise<PostVisibility | null> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const [row] = await this.sql.rows<{ status: PostStatus; author_id: number }>(sql`SELECT status, author_id FROM posts WHERE id = ${id}`);
    return row ? { status: row.status, authorId: row.author_id } : null;
  }

  /** The excerpt its writer gave (null: derived from the body), read by the write path when the body changes. */
  async customExcerptOf(id: number, executor: Executor): Promise<string | null> {
    const [row] = await this.sql.rows<{ custom_excerpt: string | null }>(sql`SELECT custom_excerpt FROM posts WHERE id = ${id}`, executor);
    return row?.custom_excerpt ?? null;
  }

  /** The stamp its preview links are signed with (CONTRACT §13); null when there is no such post. */
  async previewStampOf(id: number): Promise<number | null> {
    const [row] = await this.sql.rows<{ preview_stamp: number | string }>(sql`SELECT preview_stamp FROM posts WHERE id = ${id}`);
    return row === undefined ? null : Number(row.preview_stamp);
  }

  /** Revokes every preview link of the post: they were signed with the stamp before. */
  async bumpPreviewStamp(id: number): Promise<void> {
    await this.sql.rows(sql`UPDATE posts SET preview_stamp = preview_stamp + 1 WHERE id = ${id}`);
  }

  /**
   * Public posts (of one author, with `authorId`), newest group publication first, keyset-paged
   * on (group_published_at, id); with `languages`, one post per translation group.
   */
  async publicPage(request: PageRequest, authorId?: number, languages?: ListLocale): Promise<Page<Post>> {
    this.recordReads({ kind: 'list' });
    const { after, afterTime } = request;
    const where = this.publicScope('t', authorId);
    if (languages?.perGroup) where.push(bestOfGroup(languages.chain, this.publicScope('b', authorId)));
    if (after !== undefined) where.push(sql`(t.group_published_at, t.id) < ${this.keyOf(after, afterTime)}`);
    const statement = sql`SELECT ${this.listSelect} FROM ${this.from}${sql.where(where)} ORDER BY t.group_published_at DESC, t.id DESC LIMIT ${request.limit + 1}`;
    const page = toPage(this.listed(await this.sql.rows(statement)), request.limit, publicCursor);
    if (after !== undefined) page.hasPrevious = () => this.anyPublicFrom(after, afterTime, authorId);
    return page;
  }

  /** The public posts (of one author) over `alias`. */
  private publicScope(alias: string, authorId?: number): Fragment[] {
    const where = [PUBLIC_OF(alias)];
    if (authorId !== undefined) where.push(sql`${sql.raw(alias)}.author_id = ${authorId}`);
    return where;
  }

  /** The posts of a list's rows, each with its group's publication time. */
  private listed(rows: Record<string, unknown>[]): Post[] {
    return rows.map((row) => this.listedRow(row));
  }

  private listedRow(row: Record<string, unknown>): Post {
    const post = this.fromRow(row);
    const time = row[LIST_TIME];
    post.groupPublishedAt = time === null || time === undefined ? null : toDate(time);
    return post;
  }

  /**
   * The (group_published_at, id) of a cursor as SQL: its own time, or for an id-only cursor (issued
   * before the list paged by publication) the time of that post, read in the same statement.
   */
  private keyOf(after: number, afterTime: Date | undefined): Fragment {
    if (afterTime !== undefined) return sql`(${this.sql.timestamp(afterTime)}, ${after})`;
    // Each parameter once: SQLite numbers them by position.
    return sql`((SELECT k.group_published_at FROM posts k WHERE k.id = ${after}), ${after})`;
  }

  private async anyPublicFrom(after: number, afterTime: Date | undefined, authorId?: number): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    const where = this.publicScope('t', authorId);
    where.push(sql`(t.group_published_at, t.id) >= ${this.keyOf(after, afterTime)}`);
    return (await this.sql.rows(sql`SELECT 1 AS found FROM posts t${sql.where(where)} LIMIT 1`)).length > 0;
  }

  /**
   * The posts of one non-public state (of one owner, with `ownerId`), newest first, keyset-paged
   * on the id; with `languages`, one post per translation group (in the id order of that post).
   */
  async statusPage(status: PostStatus, request: PageRequest, ownerId?: number, languages?: ListLocale): Promise<Page<Post>> {
    this.recordReads({ kind: 'list' });
    const where = this.stateScope('t', status, ownerId);
    if (languages?.perGroup) where.push(bestOfGroup(languages.chain, this.stateScope('b', status, ownerId)));
    if (request.after !== undefined) where.push(sql`t.id < ${request.after}`);
    const statement = sql`SELECT ${this.select} FROM ${this.from}${sql.where(where)} ORDER BY t.id DESC LIMIT ${request.limit + 1}`;
    return toPage(this.map(await this.sql.rows(statement)), request.limit);
  }

  /** The posts of one state (of one owner) over `alias`. */
  private stateScope(alias: string, status: PostStatus, ownerId?: number): Fragment[] {
    const where = [sql`${sql.raw(alias)}.status = ${status}`];
    if (ownerId !== undefined) where.push(sql`${sql.raw(alias)}.author_id = ${ownerId}`);
    return where;
  }

  /**
   * A page of a filtered or sorted list: `limit` posts after `after` in the plan's order (its key,
   * then the id), keyset-paged so that a deep page reads what the first does. Public posts are
   * `status = 'published'` as a literal (the partial indexes: by group publication, title, last
   * change; a search reads the full-text index first). With `languages`, one post per
   * translation group: the best of those the filter holds (each at its own key).
   */
  async findPage(filter: PostFilter, plan: PostOrderPlan, limit: number, after?: PostKeyset): Promise<PostHit[]> {
    this.recordReads({ kind: 'list' });
    const tagIds = await this.tagIdsOf(filter.tags);
    if (tagIds === null) return [];
    const where = this.filterConditions(filter, tagIds, 't');
    if (filter.languages?.perGroup) where.push(this.bestOfFiltered(filter, tagIds));
    const direction = plan.descending ? 'DESC' : 'ASC';
    if (after !== undefined) {
      const comparison = sql.raw(plan.descending ? '<' : '>');
      if (plan.column === null) where.push(sql`t.id ${comparison} ${after.id}`);
      else {
        const key = after.key instanceof Date ? this.sql.timestamp(after.key) : after.key;
        where.push(sql`(${sql.raw(plan.column)}, t.id) ${comparison} (${key}, ${after.id})`);
      }
    }
    const order = plan.column === null ? `t.id ${direction}` : `${plan.column} ${direction}, t.id ${direction}`;
    if (filter.search) {
      const query = this.sql.dialect.searchText(filter.search);
      const rows = await this.searched(this.sql.dialect.searchStatement({ query, languages: this.searchLanguages(filter), select: this.listSelect, where, order, limit }));
      return rows.map((row) => ({ post: this.listedRow(row), rank: Number(row.search_rank), snippet: String(row.search_snippet ?? '') }));
    }
    const rows = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.listSelect} FROM ${this.from}${sql.where(where)} ORDER BY ${sql.raw(order)} LIMIT ${limit}`);
    return rows.map((row) => ({ post: this.listedRow(row), rank: null, snippet: null }));
  }

  /** bestOfGroup among the posts a filter holds (its search too), over `b`. */
  private bestOfFiltered(filter: PostFilter, tagIds: readonly number[]): Fragment {
    const holds = this.filterConditions(filter, tagIds, 'b');
    // The dialect writes a search's condition over `t`.
    if (filter.search) holds.push(this.sql.dialect.searchCondition(this.sql.dialect.searchText(filter.search), this.searchLanguages(filter), 'b'));
    return bestOfGroup(filter.languages!.chain, holds);
  }

  /** How many posts a filtered list holds (with `languages`, how many translation groups). */
  async countMatching(filter: PostFilter): Promise<number> {
    this.recordReads({ kind: 'list' });
    const tagIds = await this.tagIdsOf(filter.tags);
    if (tagIds === null) return 0;
    const where = filter.search ? [this.sql.dialect.searchCondition(this.sql.dialect.searchText(filter.search), this.searchLanguages(filter))] : [];
    where.push(...this.filterConditions(filter, tagIds, 't'));
    const statement = sql`SELECT ${this.counted(filter.languages)} AS count FROM posts t${sql.where(where)}`;
    const [row] = filter.search ? await this.searched<{ count: number | string }>(statement) : await this.sql.rows<{ count: number | string }>(statement);
    return Number(row.count);
  }

  /** The locales a search reads its query in: the list's chain (every supported locale for `*`), else DEFAULT_LOCALE. */
  private searchLanguages(filter: PostFilter): readonly string[] {
    return filter.languages?.chain ?? [this.config.defaultLocale];
  }

  /** What a list's count counts: its posts, or with one post per group its groups (a group is listed when it holds one post the list holds). */
  private counted(languages: ListLocale | undefined): Fragment {
    return sql.raw(languages?.perGroup ? `COUNT(DISTINCT ${GROUP_OF('t')})` : 'COUNT(*)');
  }

  /** A search's statement, stopped past SEARCH_TIMEOUT_MS where the database can stop it (PostgreSQL). */
  private searched<T = Record<string, unknown>>(statement: Fragment): Promise<T[]> {
    return this.sql.boundedRows<T>(statement, this.config.searchTimeoutMs);
  }

  /**
   * The ids of the tags a filter names, or null when one of them does not exist (no post can
   * have it). Read first so that the list's statement names each tag by id: the planner then
   * knows from its statistics how common each one is (see the tags migration), and
   * walks the posts' order checking each post's tags for a common tag, or reads a rare tag's
   * posts and sorts them, rather than guess for a slug it cannot see through.
   */
  private async tagIdsOf(slugs: readonly string[]): Promise<number[] | null> {
    this.recordReads({ kind: 'list' });
    if (slugs.length === 0) return [];
    const rows = await this.sql.rows<{ id: number | string }>(sql`SELECT id FROM tags WHERE slug IN (${sql.in(slugs)})`);
    return rows.length === slugs.length ? rows.map((row) => Number(row.id)) : null;
  }

  /**
   * The conditions of a filter over `alias` (its tags by id), their parameters in order. Public
   * posts are placed, and filtered by date, by their group's publication (CONTRACT §15).
   */
  private filterConditions(filter: PostFilter, tagIds: readonly number[], alias: string): Fragment[] {
    const a = sql.raw(alias);
    const where = [filter.status === undefined ? PUBLIC_OF(alias) : sql`${a}.status = ${filter.status}`];
    if (filter.authorId !== undefined) where.push(sql`${a}.author_id = ${filter.authorId}`);
    // Every one of the tags: one probe of post_tags' primary key per tag and post.
    for (const tagId of tagIds) where.push(sql`EXISTS (SELECT 1 FROM post_tags pt WHERE pt.post_id = ${a}.id AND pt.tag_id = ${tagId})`);
    const time = sql.raw(`${alias}.${filter.status === undefined ? 'group_published_at' : 'published_at'}`);
    if (filter.publishedAfter !== undefined) where.push(sql`${time} >= ${this.sql.timestamp(filter.publishedAfter)}`);
    if (filter.publishedBefore !== undefined) where.push(sql`${time} < ${this.sql.timestamp(filter.publishedBefore)}`);
    return where;
  }

  /** How many public posts (of one author), or how many of one non-public state (of one owner); with `languages`, how many translation groups. */
  async countVisible(filter: { status?: PostStatus; authorId?: number; languages?: ListLocale }): Promise<number> {
    this.recordReads({ kind: 'list' });
    const where = filter.status === undefined ? this.publicScope('t', filter.authorId) : this.stateScope('t', filter.status, filter.authorId);
    const [row] = await this.sql.rows<{ count: number | string }>(sql`SELECT ${this.counted(filter.languages)} AS count FROM posts t${sql.where(where)}`);
    return Number(row.count);
  }

  /** The addresses of public posts by id, `limit` of them (at most a sitemap's 50,000) after the first `offset`: six columns, no body. */
  async publicAddresses(offset: number, limit: number): Promise<PostAddress[]> {
    this.recordReads({ kind: 'list' });
    const rows = await this.sql.rows<AddressRow>(
      sql`SELECT t.id, t.slug, t.locale, t.published_at, t.created_at, t.updated_at, ${sql.raw(GROUP_OF('t'))} AS group_id FROM posts t WHERE ${PUBLIC} ORDER BY t.id LIMIT ${limit} OFFSET ${offset}`,
    );
    return rows.map(toAddress);
  }

  /**
   * For the sitemap's alternates: the public posts of every group that the same page of
   * publicAddresses (`offset`, `limit`) touches and that has more than one public post, by group,
   * each group by locale, in one statement (the page is read again as a subquery, so no list of
   * ids is sent, however long the page).
   */
  async publicTranslationsOfPage(offset: number, limit: number): Promise<Map<number, PostAddress[]>> {
    this.recordReads({ kind: 'list' });
    const group = (alias: string) => sql.raw(GROUP_OF(alias));
    const rows = await this.sql.rows<AddressRow>(
      sql`SELECT a.id, a.slug, a.locale, a.published_at, a.created_at, a.updated_at, ${group('a')} AS group_id FROM posts a WHERE a.status = 'published' AND ${group('a')} IN (SELECT ${group('t')} FROM posts t WHERE ${PUBLIC} ORDER BY t.id LIMIT ${limit} OFFSET ${offset}) AND EXISTS (SELECT 1 FROM posts o WHERE ${group('o')} = ${group('a')} AND o.id <> a.id AND o.status = 'published')`,
    );
    const byGroup = new Map<number, PostAddress[]>();
    for (const address of rows.map(toAddress)) {
      const members = byGroup.get(address.groupId);
      if (members) members.push(address);
      else byGroup.set(address.groupId, [address]);
    }
    for (const members of byGroup.values()) members.sort(byLocaleThenId);
    return byGroup;
  }

  /** For batching (User.posts): the first public posts of each of these authors, newest publication first, in one statement. */
  async publicPagesFor(authorIds: readonly number[], limit: number): Promise<Map<number, Post[]>> {
    this.recordReads({ kind: 'list' });
    const byAuthor = new Map<number, Post[]>(authorIds.map((id) => [id, []]));
    if (authorIds.length === 0) return byAuthor;
    const statement = sql`SELECT ${this.select} FROM ${this.from} WHERE t.id IN (SELECT page.id FROM (SELECT ranked.id AS id, ROW_NUMBER() OVER (PARTITION BY ranked.author_id ORDER BY ranked.group_published_at DESC, ranked.id DESC) AS rn FROM posts ranked WHERE ranked.status = 'published' AND ranked.author_id IN (${sql.in(authorIds)})) page WHERE page.rn <= ${limit}) ORDER BY t.group_published_at DESC, t.id DESC`;
    for (const post of this.map(await this.sql.rows(statement))) byAuthor.get(post.authorId)?.push(post);
    return byAuthor;
  }

  /**
   * For batching (Tag.posts): the newest public posts of each of these tags, newest publication
   * first, in one statement (each post once per tag that it carries).
   */
  async publicPagesOfTags(tagIds: readonly number[], limit: number): Promise<Map<number, Post[]>> {
    this.recordReads({ kind: 'list' });
    const byTag = new Map<number, Post[]>(tagIds.map((id) => [id, []]));
    if (tagIds.length === 0) return byTag;
    const statement = sql`SELECT page.tag_id AS of_tag_id, ${this.plainColumns} FROM (SELECT pt.tag_id, pt.post_id, ROW_NUMBER() OVER (PARTITION BY pt.tag_id ORDER BY r.group_published_at DESC, r.id DESC) AS rn FROM post_tags pt JOIN posts r ON r.id = pt.post_id WHERE r.status = 'published' AND pt.tag_id IN (${sql.in(tagIds)})) page JOIN posts p ON p.id = page.post_id WHERE page.rn <= ${limit} ORDER BY p.group_published_at DESC, p.id DESC`;
    for (const row of await this.sql.rows<Record<string, unknown>>(statement)) byTag.get(Number(row.of_tag_id))?.push(this.table.fromRow(row));
    return byTag;
  }

  /** Whether any scheduled post is due at `now`: one read of idx_posts_scheduled, outside any transaction. */
  async anyDue(now: Date): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    return (await this.sql.rows(sql`SELECT 1 AS found FROM posts WHERE status = 'scheduled' AND publish_at <= ${this.sql.timestamp(now)} LIMIT 1`)).length > 0;
  }

  /**
   * The scheduled posts due at `now`, oldest schedule first, locked for the transaction on
   * PostgreSQL (passing over those another instance is publishing): each is published once.
   */
  async lockDue(now: Date, limit: number, executor: Executor): Promise<Post[]> {
    this.recordReads({ kind: 'list' });
    const statement = sql`SELECT ${this.forWrite} FROM ${this.from} WHERE t.status = 'scheduled' AND t.publish_at <= ${this.sql.timestamp(now)} ORDER BY t.publish_at, t.id LIMIT ${limit}${this.lockDueClause}`;
    return (await this.sql.rows<Record<string, unknown>>(statement, executor)).map((row) => this.writtenRow(row));
  }

  /** What a write reads of a post: its columns, and its group (its id, first publication, whether it has other posts) for its publication. */
  private get forWrite(): Fragment {
    return sql`${this.columnList}, t.translation_group_id, t.group_published_at, CASE WHEN EXISTS (SELECT 1 FROM posts o WHERE ${sql.raw(GROUP_OF('o'))} = ${sql.raw(GROUP_OF('t'))} AND o.id <> t.id) THEN 1 ELSE 0 END AS shares_group`;
  }

  private writtenRow(row: Record<string, unknown>): Post {
    const post = this.table.fromRow(row);
    post.translationGroupId = row.translation_group_id === null ? null : Number(row.translation_group_id);
    post.groupPublishedAt = row.group_published_at === null ? null : toDate(row.group_published_at);
    post.sharesGroup = Number(row.shares_group) === 1;
    return post;
  }

  /** The ids of posts trashed before `before`, oldest first. */
  async trashedBefore(before: Date, limit: number): Promise<number[]> {
    this.recordReads({ kind: 'list' });
    const statement = sql`SELECT id FROM posts WHERE status = 'trashed' AND trashed_at < ${this.sql.timestamp(before)} ORDER BY trashed_at, id LIMIT ${limit}`;
    const rows = await this.sql.rows<{ id: number | string }>(statement);
    return rows.map((row) => Number(row.id));
  }

  /** The row as it is, locked until the transaction ends (PostgreSQL), for a write that reads it first. */
  async findForUpdate(id: number, executor: Executor): Promise<Post | null> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.forWrite} FROM ${this.from} WHERE t.id = ${id}${this.lockClause}`, executor);
    return row ? this.writtenRow(row) : null;
  }

  /** The comments that deleting this post takes with it (the foreign key cascades), with their status: the audience of their deletion events. */
  async cascadedComments(postId: number, executor: Executor): Promise<{ id: number; postId: number; authorId: number; status: CommentStatus }[]> {
    this.recordReads({ kind: 'ids', ids: [postId] });
    const rows = await this.sql.rows<{ id: number; author_id: number; status: CommentStatus }>(sql`SELECT id, author_id, status FROM comments WHERE post_id = ${postId}`, executor);
    return rows.map((row) => ({ id: row.id, postId, authorId: row.author_id, status: row.status }));
  }
}
