import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { URL } from 'node:url';
import process from 'node:process';
import { inspect } from 'node:util';

/**
 * What the driver, the floor server, the dataset loader and the fan-out measurement share:
 * the GraphQL documents of the scenarios, the bench account, the PRNG, timestamp formats.
 */

/**
 * The Node flags `npm start` gives the service (package.json `config.nodeFlags`): every bench
 * starts it with them, so that it measures the service as it is deployed.
 */
const PACKAGE_CONFIG = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).config ?? {};
export const SERVICE_NODE_FLAGS = (PACKAGE_CONFIG.nodeFlags ?? '').split(/\s+/).filter(Boolean);

/** The environment `npm start` adds (glibc's malloc arenas capped, package.json `config.mallocArenaMax`), unless the caller's says otherwise. */
export const SERVICE_ENV = PACKAGE_CONFIG.mallocArenaMax ? { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? PACKAGE_CONFIG.mallocArenaMax } : {};

/** Progress and errors go to stderr, so that stdout carries only the results table. */
export function log(...parts) {
  process.stderr.write(`${parts.map((part) => (typeof part === 'string' ? part : inspect(part))).join(' ')}\n`);
}

/** Results to stdout. */
export function out(text = '') {
  process.stdout.write(`${text}\n`);
}

/** Every bench user signs in with this password (its scrypt hash is computed once per dataset). */
export const BENCH_PASSWORD = 'bench-password-2718';

export const userEmail = (id) => `bench-user-${id}@bench.example`;

/**
 * The service's PUBLIC_BASE_URL in the bench (run.mjs gives it to every instance): the origin the
 * renderer tells a body's own links from other sites' by, so the dataset renders with it too.
 */
export const BENCH_PUBLIC_BASE_URL = 'https://blog.bench.example';

/**
 * The service's write rules for the §13 fields, from the build (so that the dataset and the
 * floor follow them as they change): `slugify` (src/posts/post-slugs.service.ts) and the
 * synchronous engine of a `ContentRenderer` made with the bench's PUBLIC_BASE_URL (its
 * `renderPost`, `renderComment`, `excerptOf`). Needs `npm run build`.
 */
export async function writeRules() {
  const [{ ContentRenderer }, { PublicUrls }, { slugify }] = await Promise.all([
    import('../dist/src/content/content-renderer.js'),
    import('../dist/src/publication/public-urls.js'),
    import('../dist/src/posts/post-slugs.service.js'),
  ]);
  const urls = new PublicUrls({ publicBaseUrl: BENCH_PUBLIC_BASE_URL, publicPostUrl: '{base}/posts/{id}', port: 0 });
  return { slugify, renderer: await new ContentRenderer(urls).engine() };
}

/** The longest slug (CONTRACT §13). */
export const MAX_SLUG_LENGTH = 120;

/** A slug cut to `max` characters at a `-` where it can be (post-slugs.service.ts: fitted, not exported). */
export function fittedSlug(slug, max) {
  if (slug.length <= max) return slug;
  const cut = slug.slice(0, max);
  const atWord = slug[max] === '-' ? cut : cut.replace(/-[^-]*$/, '');
  return (atWord === '' ? cut : atWord).replace(/-+$/, '');
}

/** The n-th candidate of a base: `base`, `base-2`, `base-3`…, each within the length limit (post-slugs.service.ts: candidate). */
const slugCandidate = (base, n) => (n === 1 ? base : `${fittedSlug(base, MAX_SLUG_LENGTH - String(n).length - 1)}-${n}`);

/** The first of a base's candidates not in `used` (post-slugs.service.ts: firstFree; the service reads `used` by the prefix `fittedSlug(base, 112)`). */
export function firstFreeSlug(base, used) {
  for (let n = 1; ; n++) if (!used.has(slugCandidate(base, n))) return slugCandidate(base, n);
}

/** The post page: one round trip, a small constant number of SQL statements (CONTRACT §4). */
export const POST_PAGE_QUERY =
  'query PostPage($id: Int!) { post(id: $id) { title body author { name avatarUrl } comments { body author { name } } } }';

/** The post page with the post's tags (Post.tags, batched by the service): a row of its own, so the one above stays comparable. */
export const POST_PAGE_TAGS_QUERY =
  'query PostPageTags($id: Int!) { post(id: $id) { title body author { name avatarUrl } comments { body author { name } } tags { slug name } } }';

/**
 * The post page of a Markdown post: the page above plus the body's sanitized rendering, which the
 * service stores on write (a read parses no Markdown).
 */
export const POST_PAGE_HTML_QUERY =
  'query PostPageHtml($id: Int!) { post(id: $id) { title body bodyHtml author { name avatarUrl } comments { body author { name } } } }';

/** The front page over GraphQL: the plain public list's page (planned by the service: one statement), each post with its author's name and its tags' slugs. */
export const POSTS_PAGE_QUERY =
  'query PostsPage($after: String) { posts(first: 20, after: $after) { pageInfo { hasNextPage endCursor } edges { cursor node { id title excerpt publishedAt author { name } tags { slug } } } } }';

/** The page size of POSTS_PAGE_QUERY. */
export const POSTS_PAGE_FIRST = 20;

export const CREATE_POST_MUTATION =
  'mutation CreatePost($input: CreatePostInput!) { createPost(input: $input) { id title } }';

export const POST_CREATED_SUBSCRIPTION = 'subscription PostCreated { postCreated { id title author { name } } }';

/** The page size GraphQL's `Post.comments` uses when `first` is not given (CONTRACT §4). */
export const GRAPHQL_COMMENTS_FIRST = 50;

/** The page size of REST lists when `limit` is not given (CONTRACT §2). */
export const DEFAULT_LIMIT = 20;

/** A small, fast, seedable PRNG (mulberry32): the same seed gives the same dataset and request mix. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function random() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max], both included. */
export const randomInt = (random, min, max) => min + Math.floor(random() * (max - min + 1));

/**
 * How TypeORM stores a Date in a SQLite `datetime` column: 'YYYY-MM-DD HH:MM:SS.SSS' in UTC
 * (DateUtils.mixedDateToUtcDatetimeString).
 */
export function sqliteDatetime(date) {
  return date.toISOString().replace('T', ' ').replace('Z', '');
}

const SQLITE_DATETIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$/;

/** The ISO string TypeORM hydrates a SQLite `datetime` into (then Date#toISOString in the views). */
export function isoFromSqlite(value) {
  if (SQLITE_DATETIME.test(value)) return `${value.replace(' ', 'T')}Z`;
  let text = String(value);
  if (/^\d\d\d\d-\d\d-\d\d \d\d:\d\d/.test(text)) text = text.replace(' ', 'T');
  if (/^\d\d\d\d-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d\d\d)?)?$/.test(text)) text += 'Z';
  return new Date(text).toISOString();
}

/** Keyset cursors as the service issues them: base64url of `v1:<last id>`. */
export const encodeCursor = (id) => Buffer.from(`v1:${id}`).toString('base64url');

export function decodeCursor(cursor) {
  const match = /^v1:([1-9]\d{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const id = match ? Number(match[1]) : NaN;
  return id <= 2_147_483_647 && encodeCursor(id) === cursor ? id : null;
}

/** The service's cursor of lists in (time, id) order (src/common/pagination/cursor.ts: encodeTimeCursor). */
export function encodeTimeCursor(at, id) {
  return Buffer.from(`p1:${String(at.getTime()).padStart(15, '0')}:${String(id).padStart(10, '0')}`).toString('base64url');
}

/** {time, id} of a (time, id) cursor, or null. */
export function decodeTimeCursor(cursor) {
  const match = /^p1:(\d{15}):(\d{10})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match && encodeTimeCursor(new Date(Number(match[1])), Number(match[2])) === cursor ? { time: new Date(Number(match[1])), id: Number(match[2]) } : null;
}

/** `?sort=` of GET /posts in the order whose index a cursor carries (src/posts/post-order.ts: POST_SORTS). */
export const POST_SORTS = ['-publishedAt', 'publishedAt', '-updatedAt', 'title', 'relevance'];

/** The filters a cursor of a filtered list belongs to (src/posts/post-order.ts: listFingerprint). */
export function listFingerprint(filters) {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 10);
}

/**
 * The fingerprint of a public list with only `q` or tags (PostsService.find: the same keys in
 * the same order; tags deduplicated and sorted).
 */
export const publicListFingerprint = ({ q = null, tags = [] }) =>
  listFingerprint({ q, tags: [...new Set(tags)].sort(), status: null, authorId: null, after: null, before: null });

/** A cursor of a filtered list: base64url of `s1:<sort index>:<fingerprint>:<id>:<key>` (post-order.ts: encodePostCursor). */
export function encodePostCursor(sort, fingerprint, id, key) {
  const text = key instanceof Date ? String(key.getTime()) : key === null ? '' : String(key);
  return Buffer.from(`s1:${POST_SORTS.indexOf(sort)}:${fingerprint}:${id}:${text}`).toString('base64url');
}

/** {id, key} of such a cursor issued for this sort and fingerprint (key: a Date for a time, a number for a rank), or null. */
export function decodePostCursor(cursor, sort, fingerprint) {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^s1:(\d):([\w-]{10}):([1-9]\d{0,9}):([\s\S]*)$/u.exec(text);
  if (!match || Buffer.from(text).toString('base64url') !== cursor) return null;
  const id = Number(match[3]);
  if (id > 2_147_483_647 || POST_SORTS[Number(match[1])] !== sort || match[2] !== fingerprint) return null;
  const raw = match[4];
  if (sort === 'relevance') {
    const rank = raw === '' ? NaN : Number(raw);
    return Number.isFinite(rank) ? { id, key: rank } : null;
  }
  const time = /^\d{1,15}$/.test(raw) ? new Date(Number(raw)) : null;
  return time && !Number.isNaN(time.getTime()) ? { id, key: time } : null;
}

/**
 * A search as the service reads it (src/common/persistence/text-search.ts): words, `"phrases"`,
 * `-excluded`; null when nothing is required.
 */
export function parseTextQuery(text) {
  const query = { required: [], excluded: [] };
  for (const match of text.matchAll(/(-?)(?:"([^"]*)"?|([^\s"]+))/gu)) {
    const term = (match[2] ?? match[3] ?? '').replace(/\s+/gu, ' ').trim();
    if (!/[\p{L}\p{N}]/u.test(term)) continue;
    (match[1] === '-' ? query.excluded : query.required).push(term);
  }
  return query.required.length > 0 ? query : null;
}

const quotedTerm = (term) => `"${term.replace(/"/g, '')}"`;

/** The search for SQLite's FTS5 MATCH (text-search.ts: toFts5Match). */
export const toFts5Match = (query) => [`(${query.required.map(quotedTerm).join(' AND ')})`, ...query.excluded.map(quotedTerm)].join(' NOT ');

/** The search for PostgreSQL's websearch_to_tsquery (text-search.ts: toWebSearch). */
export const toWebSearch = (query) => [...query.required.map(quotedTerm), ...query.excluded.map((term) => `-${quotedTerm(term)}`)].join(' ');

/** `sqlite:<path>` or `postgres://…` (the service's DATABASE_URL forms). */
export function parseDatabaseUrl(url) {
  if (/^postgres(ql)?:\/\//.test(url)) return { type: 'postgres', url };
  if (url.startsWith('sqlite:')) return { type: 'sqlite', url: url.slice('sqlite:'.length).replace(/^\/\//, '') };
  throw new Error(`unsupported database URL: ${url}`);
}

// ---------------------------------------------------------------------------------------------
// Command-line flags shared by run.mjs, scale.mjs and soak.mjs

/** A bad flag: the scripts print its message and the usage, and exit 2. */
export class UsageError extends Error {}

/**
 * Readers of numeric flags from `parseArgs` values: `number(name, fallback, min, max)` and
 * `integer(...)`, which also refuses fractions. `_` separators are allowed (`--posts 1_000_000`).
 */
export function numericFlags(values) {
  const number = (name, fallback, min, max = Number.MAX_SAFE_INTEGER) => {
    const raw = values[name];
    if (raw === undefined) return fallback;
    const value = Number(raw.replace(/_/g, ''));
    if (!Number.isFinite(value) || value < min || value > max) throw new UsageError(`--${name} must be a number from ${min} to ${max} (got "${raw}")`);
    return value;
  };
  const integer = (name, fallback, min, max) => {
    const value = number(name, fallback, min, max);
    if (!Number.isInteger(value)) throw new UsageError(`--${name} must be a whole number`);
    return value;
  };
  return { number, integer };
}

/** `--database`: unset (SQLite) or a postgres:// URL. */
export function checkDatabaseFlag(value) {
  if (value !== undefined && !/^postgres(ql)?:\/\//.test(value)) {
    throw new UsageError('--database must be a postgres:// URL (SQLite is the default)');
  }
}
