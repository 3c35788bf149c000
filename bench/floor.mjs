/**
 * The floor: the fastest honest server for the bench scenarios, written by hand with node:http
 * and prepared statements (better-sqlite3 in WAL mode, or pg). It answers the same bytes as the
 * service for exactly these requests, and nothing more:
 *
 *   GET  /posts/{id}                      the post (its tags' slugs read in the same statement)
 *   GET  /posts?limit=&cursor=            newest first, with the same `Link` header
 *   GET  /posts?q=&limit=&cursor=         one search, by relevance, each post with `_search` {rank, snippet}
 *   GET  /posts?tag=&limit=&cursor=       one tag, newest first (2 statements: the tag's id, the page)
 *   GET  /posts/{id}/comments?limit=&cursor=   oldest first
 *   GET  /feed?limit=&cursor=&tag=        Atom 1.0 of the newest public posts (or one tag's): the page as GET /posts
 *                   reads it, the authors' names (one statement), the XML written by hand with string
 *                   templates and an escaper; ETag a digest of the body, Last-Modified the newest entry's
 *                   update, an absolute `Link` rel="next"
 *   POST /graphql   the post page query   (3 statements: post, author, comments joined with authors;
 *                   with `tags { slug name }`, a 4th: the post's tags; with `bodyHtml`, the stored rendering)
 *   POST /graphql   the posts page query (2 statements: the page as GET /posts reads it, the authors' names)
 *   POST /graphql   the createPost mutation (HS256 bearer token checked by hand; the actor, then in a
 *                   transaction the slugs its slug could clash with, the row rendered on write, the slug's
 *                   claim in post_slugs: 6 statements with BEGIN and COMMIT)
 *   GET  /health, GET /metrics (db_queries_total: statements sent)
 *
 * The difference between the service and this is what the framework, the ORM and the
 * general-purpose GraphQL execution cost. Configuration from the environment:
 *   DATABASE_URL=sqlite:<file>|postgres://…  JWT_SECRET=…  PORT=0  HOST=127.0.0.1  DB_POOL_SIZE=10
 * Prints one JSON line `{"msg":"Listening on http://HOST:PORT"}` when ready.
 */
import { Buffer } from 'node:buffer';
import { createHash, createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import process from 'node:process';
import { URL, URLSearchParams } from 'node:url';
import {
  BENCH_PUBLIC_BASE_URL,
  CREATE_POST_MUTATION,
  DEFAULT_LIMIT,
  GRAPHQL_COMMENTS_FIRST,
  MAX_SLUG_LENGTH,
  POST_PAGE_HTML_QUERY,
  POST_PAGE_QUERY,
  POST_PAGE_TAGS_QUERY,
  POSTS_PAGE_FIRST,
  POSTS_PAGE_QUERY,
  decodeCursor,
  decodePostCursor,
  decodeTimeCursor,
  encodeCursor,
  encodePostCursor,
  encodeTimeCursor,
  firstFreeSlug,
  fittedSlug,
  isoFromSqlite,
  parseDatabaseUrl,
  parseTextQuery,
  publicListFingerprint,
  sqliteDatetime,
  toFts5Match,
  toWebSearch,
  log,
  writeRules,
} from './shared.mjs';

let statements = 0;
/** The service's slug and rendering rules for createPost (writeRules: from the build). */
let rules;

const POST_FIELDS =
  't.id, t.title, t.slug, t.body, t.body_format, t.body_html, t.excerpt, t.reading_time_minutes, t.meta_title, t.meta_description, t.canonical_url, t.cover_image_id, t.locale, ' +
  't.author_id, t.status, t.publish_at, t.published_at, t.trashed_at, t.created_at, t.updated_at';
// A post's tag slugs, read in the post's own statement by a correlated subquery, as the service
// does (src/database/*.dialect.ts: arrayOf); sorted in code-point order after reading, as it does.
const TAGS_FROM = 'FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = t.id';
// Each tag as slug + U+001E + id (its link), so that sorting them sorts by slug.
const SQLITE_POST_COLUMNS = `${POST_FIELDS}, (SELECT group_concat(g.slug || char(30) || g.id, char(31)) ${TAGS_FROM}) AS tags`;
const PG_POST_COLUMNS = `${POST_FIELDS}, ARRAY(SELECT g.slug || chr(30) || g.id ${TAGS_FROM}) AS tags`;
const PUBLIC_WITH_TAG = "t.status = 'published' AND EXISTS (SELECT 1 FROM post_tags pt WHERE pt.post_id = t.id AND pt.tag_id = ?)";
// The post page's tags: slug and name of each (the service's Post.tags reads them in one statement).
const TAGS_OF_POST = 'SELECT g.slug AS slug, g.name AS name FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = ?';
// FTS5: bm25 negated (higher is better), a title hit weighing ten body hits, below 1e-4 (the clamped
// idf of a word most posts hold) 0, plus 1e-9 per occurrence (highlight's markers, a title one ×10);
// the snippet without markers.
const BM25 = '-bm25(posts_fts, 10.0, 1.0)';
const occurrences = (column, name) => `(length(highlight(posts_fts, ${column}, char(1), '')) - length(posts_fts.${name}))`;
const SQLITE_RANK = `(CASE WHEN ${BM25} >= 1e-4 THEN ${BM25} ELSE 0 END + 1e-9 * (10.0 * ${occurrences(0, 'title')} + ${occurrences(1, 'body')}))`;
const SQLITE_SEARCH =
  `SELECT ${SQLITE_POST_COLUMNS}, s.rank AS search_rank, s.snippet AS search_snippet FROM (SELECT posts_fts.rowid AS id, ` +
  `${SQLITE_RANK} AS rank, snippet(posts_fts, -1, '', '', '…', 24) AS snippet FROM posts_fts WHERE posts_fts MATCH ?) s ` +
  "JOIN posts t ON t.id = s.id WHERE t.status = 'published'";
// PostgreSQL: the GIN index finds the matches, ts_rank_cd ranks them; ts_headline for the page's rows only.
const pgSearch = (keyset) =>
  `SELECT ${PG_POST_COLUMNS}, s.rank AS search_rank, ts_headline('english'::regconfig, t.title || ' ' || t.body, s.query, ` +
  `'StartSel="", StopSel="", MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "') AS search_snippet FROM (` +
  "SELECT t.id, ts_rank_cd(t.search, q.query)::float8 AS rank, q.query FROM posts t CROSS JOIN websearch_to_tsquery('english'::regconfig, $1) AS q(query) " +
  `WHERE t.search @@ q.query AND t.status = 'published'${keyset ? ' AND (ts_rank_cd(t.search, q.query)::float8, t.id) < ($2, $3)' : ''} ` +
  `ORDER BY ts_rank_cd(t.search, q.query)::float8 DESC, t.id DESC LIMIT $${keyset ? 4 : 2}) s JOIN posts t ON t.id = s.id ORDER BY s.rank DESC, t.id DESC`;
/** `?` placeholders as PostgreSQL's `$n`. */
const numbered = (text) => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};
const COMMENT_COLUMNS = 'id, post_id, parent_id, status, body, body_html, author_id, created_at, updated_at';
// createPost's writes, as the service's: the slugs its title's slug could clash with, the row
// (rendered on write), the slug's claim in post_slugs (ON CONFLICT DO NOTHING: taken meanwhile).
const SLUGS_LIKE = 'SELECT slug FROM post_slugs WHERE slug LIKE ?';
const INSERT_POST =
  'INSERT INTO posts (title, slug, body, body_format, body_html, excerpt, reading_time_minutes, author_id, status, published_at, group_published_at, created_at, updated_at, version) ' +
  "VALUES (?, ?, ?, 'plain', ?, ?, ?, ?, 'published', ?, ?, ?, ?, 1)";
const CLAIM_SLUG = 'INSERT INTO post_slugs (slug, post_id) VALUES (?, ?) ON CONFLICT (slug) DO NOTHING RETURNING slug';
const SET_SLUG = 'UPDATE posts SET slug = ? WHERE id = ?';
// And the rows the service records with it (issue 43: a floor that writes the same rows): revision
// 1, the POST_CREATED event with the post's JSON, and the audit entry with its changes.
const INSERT_REVISION = "INSERT INTO post_revisions (post_id, number, title, body, status, editor_id, created_at) VALUES (?, 1, ?, ?, 'published', ?, ?)";
const INSERT_EVENT = "INSERT INTO events (type, occurred_at, post_id, author_id, resource, origin, audience) VALUES ('POST_CREATED', ?, ?, ?, ?, ?, 'public')";
const INSERT_AUDIT =
  "INSERT INTO audit_entries (at, actor_id, actor_credential, action, resource_type, resource_id, changes, ip, user_agent, request_id) VALUES (?, ?, 'token', 'posts.create', 'post', ?, ?, ?, ?, ?)";
const FLOOR_ORIGIN = 'floor';

/** The JSON of the new post (its event's resource) and its audit entry's changes, as the service writes them. */
function recordsOf(post, id, slug, now) {
  const at = now.toISOString();
  const resource = JSON.stringify({
    id, title: post.title, slug, body: post.body, bodyFormat: 'plain', bodyHtml: post.bodyHtml, excerpt: post.excerpt, readingTimeMinutes: post.readingTimeMinutes,
    metaTitle: null, metaDescription: null, canonicalUrl: null, coverImageId: null, locale: post.locale, authorId: post.authorId, status: 'published',
    publishAt: null, publishedAt: at, trashedAt: null, createdAt: at, updatedAt: at, version: 1, tags: [],
  });
  const changes = JSON.stringify({
    title: { from: null, to: post.title }, slug: { from: null, to: slug }, bodyFormat: { from: null, to: 'plain' }, locale: { from: null, to: post.locale },
    authorId: { from: null, to: post.authorId }, status: { from: null, to: 'published' }, publishedAt: { from: null, to: at }, body: { from: null, to: { revision: 1 } },
  });
  return { resource, changes };
}

/**
 * A new post's row and slug (PostSlugs.proposeFor and claimFor): the first free candidate of its
 * title's slug, claimed after the insert; `post-{id}` when the title leaves nothing; then its
 * revision, event and audit entry (`db.record`). `db` runs the statements (synchronously on
 * SQLite, so this is awaited only on PostgreSQL). Returns the id.
 */
function writePost(post, db) {
  const chain = (value, next) => (value instanceof Promise ? value.then(next) : next(value));
  const base = rules.slugify(post.title);
  const freeFrom = (from, next) => chain(db.slugsLike(fittedSlug(from, MAX_SLUG_LENGTH - 8)), (used) => next(firstFreeSlug(from, used)));
  const claimNext = (id) =>
    freeFrom(base || `post-${id}`, (slug) => chain(db.claim(slug, id), (claimed) => (claimed ? chain(db.setSlug(id, slug), () => chain(db.record(id, slug), () => id)) : claimNext(id))));
  const insert = (proposed) =>
    chain(db.insert(proposed), (id) => (proposed === '' ? claimNext(id) : chain(db.claim(proposed, id), (claimed) => (claimed ? chain(db.record(id, proposed), () => id) : claimNext(id)))));
  return base === '' ? insert('') : freeFrom(base, insert);
}

/** SQLite: synchronous prepared statements; the same methods as the pg store, returning values. */
async function sqliteStore(file) {
  const Database = (await import('../dist/src/database/sqlite-driver.js')).loadSqliteDriver();
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  const sql = {
    post: db.prepare(`SELECT ${SQLITE_POST_COLUMNS} FROM posts t WHERE t.id = ? AND t.status = 'published'`),
    posts: db.prepare(`SELECT ${SQLITE_POST_COLUMNS} FROM posts t WHERE t.status = 'published' ORDER BY t.group_published_at DESC, t.id DESC LIMIT ?`),
    postsAfter: db.prepare(
      `SELECT ${SQLITE_POST_COLUMNS} FROM posts t WHERE t.status = 'published' AND (t.group_published_at < ? OR (t.group_published_at = ? AND t.id < ?)) ORDER BY t.group_published_at DESC, t.id DESC LIMIT ?`,
    ),
    tagId: db.prepare('SELECT id FROM tags WHERE slug = ?'),
    postsWithTag: db.prepare(`SELECT ${SQLITE_POST_COLUMNS} FROM posts t WHERE ${PUBLIC_WITH_TAG} ORDER BY t.group_published_at DESC, t.id DESC LIMIT ?`),
    postsWithTagAfter: db.prepare(
      `SELECT ${SQLITE_POST_COLUMNS} FROM posts t WHERE ${PUBLIC_WITH_TAG} AND (t.group_published_at, t.id) < (?, ?) ORDER BY t.group_published_at DESC, t.id DESC LIMIT ?`,
    ),
    search: db.prepare(`${SQLITE_SEARCH} ORDER BY s.rank DESC, t.id DESC LIMIT ?`),
    searchAfter: db.prepare(`${SQLITE_SEARCH} AND (s.rank, t.id) < (?, ?) ORDER BY s.rank DESC, t.id DESC LIMIT ?`),
    tagsOfPost: db.prepare(TAGS_OF_POST),
    postExists: db.prepare("SELECT 1 AS found FROM posts WHERE id = ? AND status = 'published'"),
    comments: db.prepare(`SELECT ${COMMENT_COLUMNS} FROM comments WHERE post_id = ? AND status = 'approved' ORDER BY id LIMIT ?`),
    commentsAfter: db.prepare(`SELECT ${COMMENT_COLUMNS} FROM comments WHERE post_id = ? AND status = 'approved' AND id > ? ORDER BY id LIMIT ?`),
    author: db.prepare('SELECT name, avatar_url FROM users WHERE id = ?'),
    names: db.prepare('SELECT id, name FROM users WHERE id IN (SELECT value FROM json_each(?))'),
    commentsWithAuthors: db.prepare(
      "SELECT c.body AS body, u.name AS author_name FROM comments c JOIN users u ON u.id = c.author_id WHERE c.post_id = ? AND c.status = 'approved' ORDER BY c.id LIMIT ?",
    ),
    actor: db.prepare('SELECT id, role FROM users WHERE id = ?'),
    slugsLike: db.prepare(SLUGS_LIKE).pluck(),
    insertPost: db.prepare(INSERT_POST),
    claimSlug: db.prepare(CLAIM_SLUG),
    setSlug: db.prepare(SET_SLUG),
    insertRevision: db.prepare(INSERT_REVISION),
    insertEvent: db.prepare(INSERT_EVENT),
    insertAudit: db.prepare(INSERT_AUDIT),
  };
  const run = (statement, method, ...args) => {
    statements++;
    return statement[method](...args);
  };
  return {
    iso: isoFromSqlite,
    tags: (value) => (typeof value === 'string' ? value.split('\x1f').sort() : []),
    post: (id) => run(sql.post, 'get', id) ?? null,
    posts: (limit, after) => {
      if (after === undefined) return run(sql.posts, 'all', limit);
      const at = sqliteDatetime(after.time);
      return run(sql.postsAfter, 'all', at, at, after.id, limit);
    },
    tagId: (slug) => run(sql.tagId, 'get', slug)?.id ?? null,
    postsWithTag: (tagId, limit, after) =>
      after === undefined
        ? run(sql.postsWithTag, 'all', tagId, limit)
        : run(sql.postsWithTagAfter, 'all', tagId, sqliteDatetime(after.key), after.id, limit),
    search: (query, limit, after) => {
      const match = toFts5Match(query);
      return after === undefined ? run(sql.search, 'all', match, limit) : run(sql.searchAfter, 'all', match, after.key, after.id, limit);
    },
    tagsOfPost: (postId) => run(sql.tagsOfPost, 'all', postId),
    postExists: (id) => run(sql.postExists, 'get', id) !== undefined,
    comments: (postId, limit, after) =>
      after === undefined ? run(sql.comments, 'all', postId, limit) : run(sql.commentsAfter, 'all', postId, after, limit),
    author: (id) => run(sql.author, 'get', id) ?? null,
    names: (ids) => run(sql.names, 'all', JSON.stringify(ids)),
    commentsWithAuthors: (postId, limit) => run(sql.commentsWithAuthors, 'all', postId, limit),
    actor: (id) => run(sql.actor, 'get', id) ?? null,
    // BEGIN and COMMIT count as statements, as everywhere else.
    createPost: (post, now) => {
      statements += 2;
      return db.transaction(() => {
        const at = sqliteDatetime(now);
        return writePost(post, {
          slugsLike: (prefix) => new Set(run(sql.slugsLike, 'all', `${prefix}%`)),
          insert: (slug) => Number(run(sql.insertPost, 'run', post.title, slug, post.body, post.bodyHtml, post.excerpt, post.readingTimeMinutes, post.authorId, at, at, at, at).lastInsertRowid),
          claim: (slug, id) => run(sql.claimSlug, 'all', slug, id).length === 1,
          setSlug: (id, slug) => run(sql.setSlug, 'run', slug, id),
          record: (id, slug) => {
            const { resource, changes } = recordsOf(post, id, slug, now);
            run(sql.insertRevision, 'run', id, post.title, post.body, post.authorId, at);
            run(sql.insertAudit, 'run', at, post.authorId, id, changes, post.ip, post.userAgent, post.requestId);
            run(sql.insertEvent, 'run', at, id, post.authorId, resource, FLOOR_ORIGIN);
          },
        });
      }).immediate();
    },
    close: () => db.close(),
  };
}

/** PostgreSQL: named (server-side prepared) statements over a pool. */
async function postgresStore(url, poolSize) {
  const { default: pg } = await import('pg');
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  const query = async (name, text, values) => {
    statements++;
    return (await pool.query({ name, text, values })).rows;
  };
  const one = async (name, text, values) => (await query(name, text, values))[0] ?? null;
  await pool.query('SELECT 1');
  return {
    iso: (date) => date.toISOString(),
    tags: (value) => (Array.isArray(value) ? value.sort() : []),
    post: (id) => one('post', `SELECT ${PG_POST_COLUMNS} FROM posts t WHERE t.id = $1 AND t.status = 'published'`, [id]),
    posts: (limit, after) =>
      after === undefined
        ? query('posts', `SELECT ${PG_POST_COLUMNS} FROM posts t WHERE t.status = 'published' ORDER BY t.group_published_at DESC, t.id DESC LIMIT $1`, [limit])
        : query(
            'posts_after',
            `SELECT ${PG_POST_COLUMNS} FROM posts t WHERE t.status = 'published' AND (t.group_published_at, t.id) < ($1, $2) ORDER BY t.group_published_at DESC, t.id DESC LIMIT $3`,
            [after.time, after.id, limit],
          ),
    tagId: async (slug) => (await one('tag_id', 'SELECT id FROM tags WHERE slug = $1', [slug]))?.id ?? null,
    postsWithTag: (tagId, limit, after) =>
      after === undefined
        ? query('posts_with_tag', numbered(`SELECT ${PG_POST_COLUMNS} FROM posts t WHERE ${PUBLIC_WITH_TAG} ORDER BY t.group_published_at DESC, t.id DESC LIMIT ?`), [tagId, limit])
        : query(
            'posts_with_tag_after',
            numbered(`SELECT ${PG_POST_COLUMNS} FROM posts t WHERE ${PUBLIC_WITH_TAG} AND (t.group_published_at, t.id) < (?, ?) ORDER BY t.group_published_at DESC, t.id DESC LIMIT ?`),
            [tagId, after.key, after.id, limit],
          ),
    search: (search, limit, after) =>
      after === undefined
        ? query('search', pgSearch(false), [toWebSearch(search), limit])
        : query('search_after', pgSearch(true), [toWebSearch(search), after.key, after.id, limit]),
    tagsOfPost: (postId) => query('tags_of_post', numbered(TAGS_OF_POST), [postId]),
    postExists: async (id) => (await one('post_exists', "SELECT 1 AS found FROM posts WHERE id = $1 AND status = 'published'", [id])) !== null,
    comments: (postId, limit, after) =>
      after === undefined
        ? query('comments', `SELECT ${COMMENT_COLUMNS} FROM comments WHERE post_id = $1 AND status = 'approved' ORDER BY id LIMIT $2`, [postId, limit])
        : query('comments_after', `SELECT ${COMMENT_COLUMNS} FROM comments WHERE post_id = $1 AND status = 'approved' AND id > $2 ORDER BY id LIMIT $3`, [postId, after, limit]),
    author: (id) => one('author', 'SELECT name, avatar_url FROM users WHERE id = $1', [id]),
    names: (ids) => query('names', 'SELECT id, name FROM users WHERE id = ANY($1::int[])', [ids]),
    commentsWithAuthors: (postId, limit) =>
      query(
        'comments_with_authors',
        "SELECT c.body AS body, u.name AS author_name FROM comments c JOIN users u ON u.id = c.author_id WHERE c.post_id = $1 AND c.status = 'approved' ORDER BY c.id LIMIT $2",
        [postId, limit],
      ),
    actor: (id) => one('actor', 'SELECT id, role FROM users WHERE id = $1', [id]),
    createPost: async (post, now) => {
      const client = await pool.connect();
      const on = async (name, text, values) => {
        statements++;
        return (await client.query({ name, text, values })).rows;
      };
      try {
        await on(undefined, 'BEGIN');
        const id = await writePost(post, {
          slugsLike: async (prefix) => new Set((await on('slugs_like', numbered(SLUGS_LIKE), [`${prefix}%`])).map((row) => row.slug)),
          insert: async (slug) =>
            (await on('insert_post', `${numbered(INSERT_POST)} RETURNING id`, [post.title, slug, post.body, post.bodyHtml, post.excerpt, post.readingTimeMinutes, post.authorId, now, now, now, now]))[0].id,
          claim: async (slug, postId) => (await on('claim_slug', numbered(CLAIM_SLUG), [slug, postId])).length === 1,
          setSlug: (postId, slug) => on('set_slug', numbered(SET_SLUG), [slug, postId]),
          record: async (postId, slug) => {
            const { resource, changes } = recordsOf(post, postId, slug, now);
            await on('insert_revision', numbered(INSERT_REVISION), [postId, post.title, post.body, post.authorId, now]);
            await on('insert_audit', numbered(INSERT_AUDIT), [now, post.authorId, postId, changes, post.ip, post.userAgent, post.requestId]);
            await on('insert_event', numbered(INSERT_EVENT), [now, postId, post.authorId, resource, FLOOR_ORIGIN]);
          },
        });
        await on(undefined, 'COMMIT');
        return id;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

// The JSON views of the service (post.view.ts, comment.view.ts), field for field, in the same order.
const postView = (store, row) => ({
  id: row.id,
  title: row.title,
  slug: row.slug,
  body: row.body,
  bodyFormat: row.body_format,
  bodyHtml: row.body_html,
  excerpt: row.excerpt,
  readingTimeMinutes: row.reading_time_minutes,
  metaTitle: row.meta_title,
  metaDescription: row.meta_description,
  canonicalUrl: row.canonical_url,
  coverImageId: row.cover_image_id === null ? null : Number(row.cover_image_id),
  locale: row.locale,
  authorId: row.author_id,
  status: row.status,
  publishAt: row.publish_at === null ? null : store.iso(row.publish_at),
  publishedAt: row.published_at === null ? null : store.iso(row.published_at),
  trashedAt: row.trashed_at === null ? null : store.iso(row.trashed_at),
  createdAt: store.iso(row.created_at),
  updatedAt: store.iso(row.updated_at),
  ...postTags(store.tags(row.tags).map((tag) => tag.split('\x1e')), row),
});

/** A post's tags (slugs) and its links, with one link per tag when it has any. */
const postTags = (tags, row) => ({
  tags: tags.map(([slug]) => slug),
  _links: {
    self: { href: `/posts/${row.id}` },
    author: { href: `/users/${row.author_id}` },
    comments: { href: `/posts/${row.id}/comments` },
    ...(tags.length > 0 ? { tags: tags.map(([slug, id]) => ({ href: `/tags/${id}`, name: slug })) } : {}),
  },
});

const commentView = (store, row) => ({
  id: row.id,
  postId: row.post_id,
  parentId: row.parent_id,
  status: row.status,
  body: row.body,
  bodyHtml: row.body_html,
  authorId: row.author_id,
  createdAt: store.iso(row.created_at),
  updatedAt: store.iso(row.updated_at),
  _links: {
    self: { href: `/comments/${row.id}` },
    post: { href: `/posts/${row.post_id}` },
    author: { href: `/users/${row.author_id}` },
    ...(row.parent_id === null ? {} : { parent: { href: `/comments/${row.parent_id}` } }),
    replies: { href: `/posts/${row.post_id}/comments?parentId=${row.id}` },
  },
});

const JSON_TYPE = 'application/json; charset=utf-8';
const ID = /^[1-9]\d{0,9}$/;

class HttpError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

function send(response, status, body, headers = {}) {
  response.writeHead(status, { 'content-type': JSON_TYPE, 'content-length': Buffer.byteLength(body), ...headers });
  response.end(body);
}

function problem(response, status, detail, instance) {
  const titles = { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 405: 'Method Not Allowed', 500: 'Internal Server Error' };
  const body = JSON.stringify({ type: 'about:blank', title: titles[status] ?? 'Error', status, detail, instance });
  send(response, status, body, { 'content-type': 'application/problem+json; charset=utf-8' });
}

/** `limit` (1-100, default 20) and `cursor` of a list, as the service validates them. */
function pageRequest(search, decode = decodeCursor) {
  if (search === '') return { limit: DEFAULT_LIMIT, after: undefined };
  const params = new URLSearchParams(search);
  let limit = DEFAULT_LIMIT;
  const rawLimit = params.get('limit');
  if (rawLimit !== null) {
    if (!/^\d{1,3}$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 100) {
      throw new HttpError(400, 'limit must be an integer from 1 to 100');
    }
    limit = Number(rawLimit);
  }
  const cursor = params.get('cursor');
  let after;
  if (cursor !== null) {
    after = decode(cursor);
    if (after === null) throw new HttpError(400, 'cursor is not a cursor this service issued');
  }
  return { limit, after };
}

/** One page of `limit + 1` rows in keyset order: the items and the `Link` header of the next page. */
function page(rows, limit, path, cursorOf = (row) => encodeCursor(row.id)) {
  if (rows.length <= limit) return { items: rows, headers: {} };
  const items = rows.slice(0, limit);
  const next = `${path}?limit=${limit}&cursor=${cursorOf(items[items.length - 1])}`;
  return { items, headers: { link: `<${next}>; rel="next"` } };
}

/** HS256 JWT check by hand: signature, algorithm, expiry; the subject is the user id. */
function verifyBearer(header, secret) {
  const match = /^Bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(header ?? '');
  if (!match) return null;
  const expected = createHmac('sha256', secret).update(`${match[1]}.${match[2]}`).digest();
  const given = Buffer.from(match[3], 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const head = JSON.parse(Buffer.from(match[1], 'base64url').toString('utf8'));
    const claims = JSON.parse(Buffer.from(match[2], 'base64url').toString('utf8'));
    if (head.alg !== 'HS256') return null;
    if (typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now()) return null;
    if (typeof claims.nbf === 'number' && claims.nbf * 1000 > Date.now()) return null;
    return typeof claims.sub === 'string' && ID.test(claims.sub) ? Number(claims.sub) : null;
  } catch {
    return null;
  }
}

const graphqlError = (message, code) => ({ errors: [{ message, extensions: { code } }], data: null });

const codePointOrder = (a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0);

/**
 * The post page; `withTags`: also the post's tags {slug, name}, by slug in code-point order;
 * `withHtml`: also `bodyHtml`, after `body` (the rendering stored on write: nothing is parsed here).
 */
async function postPage(store, variables, { withTags = false, withHtml = false } = {}) {
  const id = variables?.id;
  if (!Number.isInteger(id)) return graphqlError('Variable "$id" of required type "Int!" was not provided.', 'BAD_USER_INPUT');
  const post = await store.post(id);
  if (post === null) return { data: { post: null } };
  const [author, comments, tags] = await Promise.all([
    store.author(post.author_id),
    store.commentsWithAuthors(post.id, GRAPHQL_COMMENTS_FIRST),
    withTags ? store.tagsOfPost(post.id) : null,
  ]);
  const page = {
    title: post.title,
    body: post.body,
    ...(withHtml ? { bodyHtml: post.body_html } : {}),
    author: { name: author.name, avatarUrl: author.avatar_url },
    comments: comments.map((comment) => ({ body: comment.body, author: { name: comment.author_name } })),
  };
  if (tags !== null) page.tags = tags.sort(codePointOrder).map((tag) => ({ slug: tag.slug, name: tag.name }));
  return { data: { post: page } };
}

/** The posts page: the public list's page (after a time cursor), each post with its author's name and its tags' slugs. */
async function postsPage(store, variables) {
  const given = variables?.after ?? null;
  const after = given === null ? undefined : decodeTimeCursor(given);
  if (after === null) return graphqlError('after is not a cursor this service issued', 'BAD_USER_INPUT');
  const rows = await store.posts(POSTS_PAGE_FIRST + 1, after);
  const items = rows.slice(0, POSTS_PAGE_FIRST);
  const names = new Map(items.length === 0 ? [] : (await store.names([...new Set(items.map((row) => row.author_id))])).map((user) => [Number(user.id), user.name]));
  const edges = items.map((row) => {
    const publishedAt = store.iso(row.published_at);
    return {
      cursor: encodeTimeCursor(new Date(publishedAt), row.id),
      node: {
        id: row.id,
        title: row.title,
        excerpt: row.excerpt,
        publishedAt,
        author: { name: names.get(Number(row.author_id)) },
        tags: store.tags(row.tags).map((tag) => ({ slug: tag.split('\x1e')[0] })),
      },
    };
  });
  return { data: { posts: { pageInfo: { hasNextPage: rows.length > POSTS_PAGE_FIRST, endCursor: edges.length > 0 ? edges[edges.length - 1].cursor : null }, edges } } };
}

async function createPost(store, variables, request, secret) {
  const userId = verifyBearer(request.headers.authorization, secret);
  const actor = userId === null ? null : await store.actor(userId);
  if (actor === null) return graphqlError('Sign in to do this', 'UNAUTHENTICATED');
  const input = variables?.input ?? {};
  const title = typeof input.title === 'string' ? input.title.trim() : null;
  const body = typeof input.body === 'string' ? input.body : null;
  if (title === null || title.length < 1 || title.length > 200 || body === null || body.length < 1 || body.length > 100_000) {
    return graphqlError('Invalid input', 'BAD_USER_INPUT');
  }
  const rendered = rules.renderer.renderPost(body, 'plain');
  const post = { title, body, authorId: actor.id, bodyHtml: rendered.bodyHtml, excerpt: rules.renderer.excerptOf(rendered), readingTimeMinutes: rendered.readingTimeMinutes };
  // Where it came from, for its audit entry (the service's requestSource).
  Object.assign(post, { locale: 'en', ip: request.socket.remoteAddress ?? null, userAgent: request.headers['user-agent']?.slice(0, 512) ?? null, requestId: randomUUID() });
  const id = await store.createPost(post, new Date());
  return { data: { createPost: { id, title } } };
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on('data', (chunk) => {
      size += chunk.length;
      if (size > 1_048_576) reject(new HttpError(413, 'body over the limit'));
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

async function graphql(store, request, response, secret) {
  let document;
  try {
    document = JSON.parse(await readBody(request));
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw new HttpError(400, 'the body is not JSON');
  }
  // Only the bench's own documents: this is a floor, not a GraphQL server.
  let result;
  if (document?.query === POST_PAGE_QUERY) result = await postPage(store, document.variables);
  else if (document?.query === POST_PAGE_TAGS_QUERY) result = await postPage(store, document.variables, { withTags: true });
  else if (document?.query === POST_PAGE_HTML_QUERY) result = await postPage(store, document.variables, { withHtml: true });
  else if (document?.query === POSTS_PAGE_QUERY) result = await postsPage(store, document.variables);
  else if (document?.query === CREATE_POST_MUTATION) {
    result = await createPost(store, document.variables, request, secret);
  } else result = graphqlError('The floor serves only the bench documents', 'GRAPHQL_VALIDATION_FAILED');
  send(response, result.errors && !result.data ? 400 : 200, `${JSON.stringify(result)}\n`);
}

const MAX_SEARCH_LENGTH = 200;

/**
 * GET /posts with one `q` (by relevance, each post with `_search`) or one `tag` (newest first),
 * paged by the service's cursors of filtered lists, with the same `Link` header.
 */
async function foundPosts(store, response, search) {
  const params = new URLSearchParams(search);
  for (const name of params.keys()) {
    if (!['q', 'tag', 'limit', 'cursor'].includes(name)) throw new HttpError(400, `${name} is not served by the floor`);
  }
  const q = params.getAll('q');
  const tags = params.getAll('tag');
  if (q.length + tags.length !== 1) throw new HttpError(400, 'the floor serves one q or one tag');
  const limitText = params.get('limit');
  if (limitText !== null && (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100)) {
    throw new HttpError(400, 'limit must be an integer from 1 to 100');
  }
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  if (q.length > 0 && [...q[0]].length > MAX_SEARCH_LENGTH) throw new HttpError(400, `q must be at most ${MAX_SEARCH_LENGTH} characters`);
  const sort = q.length > 0 ? 'relevance' : '-publishedAt';
  const fingerprint = publicListFingerprint(q.length > 0 ? { q: q[0] } : { tags });
  const cursor = params.get('cursor');
  let after;
  if (cursor !== null) {
    after = decodePostCursor(cursor, sort, fingerprint);
    if (after === null) throw new HttpError(400, 'cursor is not a cursor this service issued');
  }

  let rows;
  if (q.length > 0) {
    const query = parseTextQuery(q[0]);
    rows = query === null ? [] : await store.search(query, limit + 1, after);
  } else {
    const tagId = await store.tagId(tags[0]);
    rows = tagId === null ? [] : await store.postsWithTag(tagId, limit + 1, after);
  }
  const items = rows.slice(0, limit);
  const headers = {};
  if (rows.length > limit) {
    const last = items[items.length - 1];
    const key = q.length > 0 ? Number(last.search_rank) : new Date(store.iso(last.published_at));
    const next = new URLSearchParams({ limit: String(limit) });
    if (q.length > 0) next.set('q', q[0]);
    else next.append('tag', tags[0]);
    next.set('cursor', encodePostCursor(sort, fingerprint, last.id, key));
    headers.link = `</posts?${next.toString()}>; rel="next"`;
  }
  const views =
    q.length > 0
      ? items.map((row) => ({
          ...postView(store, row),
          _search: { rank: Number(row.search_rank), snippet: [...String(row.search_snippet ?? '')].slice(0, 200).join('') },
        }))
      : items.map((row) => postView(store, row));
  return send(response, 200, JSON.stringify(views), headers);
}

// GET /feed: Atom 1.0 as the service's FeedRenderer writes it (src/publication/feed.renderer.ts),
// by hand. What XML 1.0 cannot carry is dropped from the text (the renderer's feedText); then
// `&`, `<` and `>` are escaped, and `"` too in attributes (what its serializer escapes, no more).
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const XML_ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const xmlText = (text) => text.replace(NOT_XML, '').replace(/[&<>]/g, (c) => XML_ESCAPES[c]);
const xmlAttribute = (text) => text.replace(NOT_XML, '').replace(/[&<>"]/g, (c) => XML_ESCAPES[c]);
const ATOM_TYPE = 'application/atom+xml; charset=utf-8';
const FEED_HOST = new URL(BENCH_PUBLIC_BASE_URL).hostname;

/** The path and query without `cursor` (the feed's id: every page shares it). */
function withoutCursor(path) {
  const mark = path.indexOf('?');
  if (mark < 0) return path;
  const params = new URLSearchParams(path.slice(mark + 1));
  params.delete('cursor');
  const rest = params.toString();
  return rest === '' ? path.slice(0, mark) : `${path.slice(0, mark)}?${rest}`;
}

/** One entry: the post's public URL is PUBLIC_POST_URL's default, `{base}/posts/{id}`. */
function atomEntry(store, row, author) {
  const created = store.iso(row.created_at);
  const categories = store.tags(row.tags).map((tag) => `<category term="${xmlAttribute(tag.slice(0, tag.indexOf('\x1e')))}"/>`).join('');
  return (
    `<entry><id>tag:${FEED_HOST},${created.slice(0, 10)}:post:${row.id}</id>` +
    `<title type="text">${xmlText(row.title)}</title>` +
    `<link rel="alternate" type="text/html" href="${xmlAttribute(`${BENCH_PUBLIC_BASE_URL}/posts/${row.id}`)}"/>` +
    `<published>${row.published_at === null ? created : store.iso(row.published_at)}</published>` +
    `<updated>${store.iso(row.updated_at)}</updated>` +
    `<author><name>${xmlText(author)}</name></author>${categories}` +
    `<summary type="text">${xmlText(row.excerpt)}</summary>` +
    `<content type="html">${xmlText(row.body_html)}</content></entry>`
  );
}

/**
 * GET /feed with `limit`, `cursor` and at most one `tag`: the page GET /posts reads (the plain
 * list's (publishedAt, id) cursor, or a tag list's), then the authors' names in one statement.
 */
async function feed(store, response, url, search) {
  const params = new URLSearchParams(search);
  for (const name of params.keys()) {
    if (!['tag', 'limit', 'cursor'].includes(name)) throw new HttpError(400, `${name} is not served by the floor`);
  }
  const tags = params.getAll('tag');
  if (tags.length > 1) throw new HttpError(400, 'the floor serves at most one tag');
  const limitText = params.get('limit');
  if (limitText !== null && (!/^\d{1,3}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > 100)) {
    throw new HttpError(400, 'limit must be an integer from 1 to 100');
  }
  const limit = limitText === null ? DEFAULT_LIMIT : Number(limitText);
  const cursor = params.get('cursor');
  const fingerprint = tags.length > 0 ? publicListFingerprint({ tags }) : null;
  let after;
  if (cursor !== null) {
    after = fingerprint === null ? decodeTimeCursor(cursor) : decodePostCursor(cursor, '-publishedAt', fingerprint);
    if (after === null) throw new HttpError(400, 'cursor is not a cursor this service issued');
  }
  let rows;
  if (fingerprint === null) rows = await store.posts(limit + 1, after);
  else {
    const tagId = await store.tagId(tags[0]);
    rows = tagId === null ? [] : await store.postsWithTag(tagId, limit + 1, after);
  }
  const items = rows.slice(0, limit);
  let next = null;
  if (rows.length > limit) {
    const last = items[items.length - 1];
    const at = new Date(store.iso(last.published_at));
    const query = new URLSearchParams({ limit: String(limit) });
    if (fingerprint !== null) query.append('tag', tags[0]);
    query.set('cursor', fingerprint === null ? encodeTimeCursor(at, last.id) : encodePostCursor('-publishedAt', fingerprint, last.id, at));
    next = `${BENCH_PUBLIC_BASE_URL}/feed?${query.toString()}`;
  }
  const names = new Map();
  if (items.length > 0) for (const user of await store.names([...new Set(items.map((row) => row.author_id))])) names.set(user.id, user.name);

  let updated = '1970-01-01T00:00:00.000Z';
  for (const row of items) {
    const at = store.iso(row.updated_at);
    if (at > updated) updated = at;
  }
  const body =
    '<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en">' +
    `<id>${xmlText(`${BENCH_PUBLIC_BASE_URL}${withoutCursor(url)}`)}</id>` +
    '<title type="text">Blog</title><subtitle type="text">The newest posts</subtitle>' +
    `<updated>${updated}</updated>` +
    `<link rel="self" type="application/atom+xml" href="${xmlAttribute(`${BENCH_PUBLIC_BASE_URL}${url}`)}"/>` +
    `<link rel="alternate" type="text/html" href="${xmlAttribute(`${BENCH_PUBLIC_BASE_URL}/`)}"/>` +
    (next === null ? '' : `<link rel="next" type="application/atom+xml" href="${xmlAttribute(next)}"/>`) +
    items.map((row) => atomEntry(store, row, names.get(row.author_id) ?? 'Unknown')).join('') +
    '</feed>';
  const headers = {
    'content-type': ATOM_TYPE,
    etag: `"h${createHash('sha1').update(body).digest('base64url').slice(0, 20)}"`,
    'last-modified': new Date(updated).toUTCString(),
  };
  if (next !== null) headers.link = `<${next}>; rel="next"`;
  return send(response, 200, body, headers);
}

async function handle(store, request, response, secret) {
  const url = request.url ?? '/';
  const mark = url.indexOf('?');
  const path = mark < 0 ? url : url.slice(0, mark);
  const search = mark < 0 ? '' : url.slice(mark + 1);

  if (request.method === 'POST' && path === '/graphql') return graphql(store, request, response, secret);
  if (request.method !== 'GET') throw new HttpError(405, `${request.method} is not served by the floor`);

  if (path === '/feed') return feed(store, response, url, search);
  if (path === '/posts' && /(?:^|&)(?:q|tag)=/.test(search)) return foundPosts(store, response, search);
  if (path === '/posts') {
    // Public posts, newest publication first, keyset on (published_at, id) as the service pages them.
    const { limit, after } = pageRequest(search, decodeTimeCursor);
    const cursorOf = (row) => encodeTimeCursor(new Date(store.iso(row.published_at)), row.id);
    const { items, headers } = page(await store.posts(limit + 1, after), limit, '/posts', cursorOf);
    return send(response, 200, JSON.stringify(items.map((row) => postView(store, row))), headers);
  }
  if (path.startsWith('/posts/')) {
    const rest = path.slice('/posts/'.length);
    const slash = rest.indexOf('/');
    const idText = slash < 0 ? rest : rest.slice(0, slash);
    if (!ID.test(idText)) throw new HttpError(400, 'id must be a positive integer');
    const id = Number(idText);
    if (slash < 0) {
      const row = await store.post(id);
      if (row === null) throw new HttpError(404, `Post ${id} does not exist`);
      return send(response, 200, JSON.stringify(postView(store, row)));
    }
    if (rest.slice(slash) === '/comments') {
      const { limit, after } = pageRequest(search);
      if (!(await store.postExists(id))) throw new HttpError(404, `Post ${id} does not exist`);
      const { items, headers } = page(await store.comments(id, limit + 1, after), limit, `/posts/${id}/comments`);
      return send(response, 200, JSON.stringify(items.map((row) => commentView(store, row))), headers);
    }
  }
  if (path === '/health') return send(response, 200, '{"status":"ok"}');
  if (path === '/metrics') {
    const body = `# HELP db_queries_total SQL statements sent to the database\n# TYPE db_queries_total counter\ndb_queries_total ${statements}\n`;
    return send(response, 200, body, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
  }
  throw new HttpError(404, `${path} is not served by the floor`);
}

export async function startFloor({ databaseUrl, jwtSecret, port = 0, host = '127.0.0.1', poolSize = 10 }) {
  const database = parseDatabaseUrl(databaseUrl);
  rules = await writeRules();
  const store = database.type === 'postgres' ? await postgresStore(database.url, poolSize) : await sqliteStore(database.url);
  const server = createServer((request, response) => {
    handle(store, request, response, jwtSecret).catch((error) => {
      if (response.headersSent) return response.destroy();
      if (error instanceof HttpError) return problem(response, error.status, error.message, request.url);
      log(error);
      problem(response, 500, 'The floor failed', request.url);
    });
  });
  server.keepAliveTimeout = 72_000;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return {
    url: `http://${host}:${address.port}`,
    close: async () => {
      await new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await store.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { DATABASE_URL, JWT_SECRET, PORT, HOST, DB_POOL_SIZE } = process.env;
  if (!DATABASE_URL || !JWT_SECRET) {
    log('floor: DATABASE_URL and JWT_SECRET are required');
    process.exit(2);
  }
  startFloor({
    databaseUrl: DATABASE_URL,
    jwtSecret: JWT_SECRET,
    port: Number(PORT ?? 0),
    host: HOST ?? '127.0.0.1',
    poolSize: Number(DB_POOL_SIZE ?? 10),
  }).then(
    (floor) => {
      process.stdout.write(`${JSON.stringify({ msg: `Listening on ${floor.url}` })}\n`);
      const stop = () => floor.close().then(() => process.exit(0), () => process.exit(1));
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    },
    (error) => {
      log('floor: start-up failed:', error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
