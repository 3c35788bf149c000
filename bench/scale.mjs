/**
 * `npm run bench:scale`: does the service stay fast on a big database?
 *
 *  1. A fresh database (a SQLite file in a temp dir, or with --database a new PostgreSQL
 *     database beside the one named, dropped afterwards); the production build starts once so
 *     its migrations create the schema, and stops. Refuses to start with less than
 *     --min-free-gb (20) free on the disk that holds the database.
 *  2. 1,000 users, 1,000,000 posts and 10,000,000 comments (--users, --posts,
 *     --comments-per-post) go straight into the database, not over HTTP:
 *     SQLite — one prepared INSERT per table, --batch rows (50,000) per transaction,
 *       journal_mode=WAL + synchronous=OFF + foreign_keys=OFF on the loading connection only;
 *     PostgreSQL — INSERT … SELECT … FROM generate_series(…), --batch × 10 rows per statement,
 *       then VACUUM (ANALYZE).
 *     On both, the secondary indexes (and on PostgreSQL the foreign keys) the migrations made are
 *     dropped before the rows and re-made from their own definitions afterwards (a sorted build
 *     instead of ten million random B-tree inserts); the script checks that the schema is the
 *     same afterwards. Rows are short (~100-byte bodies) and deterministic: the same on both
 *     engines (users as bench/dataset.mjs makes them; every password is bench-password-2718).
 *  3. The service starts on the loaded database (NODE_ENV=production, LOG_LEVEL=warn, rate
 *     limits off, fixed JWT_SECRET) and autocannon measures, after a warm-up, --rounds (3)
 *     rounds of --duration (5) seconds per scenario, interleaved, with --connections (16): the
 *     first page of GET /posts?limit=20, a middle page and the last page by cursor (cursors
 *     computed: base64url of `v1:<id>`), GET /posts/{random id}, GET /posts/{random id}/comments
 *     and the GraphQL post page (random ids). The last page must be within 1.5× of the first
 *     (first-page req/s ÷ last-page req/s); the exit code is 1 when it is not, or when a list
 *     statement's plan does not use the index.
 *  4. The list statements' plans (EXPLAIN QUERY PLAN / EXPLAIN ANALYZE), each timed, and the
 *     statements' own execution time straight on the driver.
 *  5. A markdown table on stdout (progress on stderr) and bench/results/scale.json.
 *
 * Everything it starts (servers, the temp dir, the PostgreSQL database) is removed on success,
 * on errors, on Ctrl-C and after --timeout minutes, unless --keep.
 * Run `node bench/scale.mjs --help` for the flags. The script builds nothing: `npm run bench:scale` does.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, statfs, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setImmediate, setTimeout } from 'node:timers';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_SIZES, generateDataset } from './dataset.mjs';
import {
  abort,
  cannon,
  cleanups,
  fmt,
  gitState,
  machine,
  measureRound,
  prepareDatabase,
  rssMb,
  runScript,
  send,
  startService,
  summarize,
} from './run.mjs';
import {
  POST_PAGE_QUERY,
  UsageError,
  checkDatabaseFlag,
  encodeCursor,
  log,
  mulberry32,
  numericFlags,
  out,
  parseDatabaseUrl,
  randomInt,
  sqliteDatetime,
} from './shared.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVICE_ENTRY = path.join(ROOT, 'dist', 'src', 'main.js');

const HELP = `Usage: npm run bench:scale -- [flags]     (or: node bench/scale.mjs [flags] after npm run build)

Dataset   --users N (1000)  --posts N (1000000)  --comments-per-post N (10)  --seed N (42)
          --batch N (50000) rows per SQLite transaction (PostgreSQL: N × 10 rows per INSERT … SELECT)
Load      --duration S (5)  --rounds N (3; interleaved over the scenarios)  --connections N (16)
          --warmup S (2 per scenario; 0 = none)
Database  --database postgres://user@host:port/db   a fresh database is created beside db and dropped after
          (default: a SQLite file in a temp dir)
Other     --min-free-gb N (20) refuse to run with less free disk than this
          --out FILE (bench/results/scale.json)  --keep (keep the temp dir / database)
          --timeout MIN (120) stop everything and exit after this long
`;

function readOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      users: { type: 'string' },
      posts: { type: 'string' },
      'comments-per-post': { type: 'string' },
      seed: { type: 'string' },
      batch: { type: 'string' },
      duration: { type: 'string' },
      rounds: { type: 'string' },
      connections: { type: 'string' },
      warmup: { type: 'string' },
      database: { type: 'string' },
      'min-free-gb': { type: 'string' },
      out: { type: 'string' },
      keep: { type: 'boolean' },
      timeout: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const { number, integer } = numericFlags(values);
  checkDatabaseFlag(values.database);
  const options = {
    help: values.help === true,
    users: integer('users', 1000, 1, 10_000_000),
    // Ids stay within PostgreSQL's integer (and the cursor's 2^31 - 1).
    posts: integer('posts', 1_000_000, 21, 100_000_000),
    commentsPerPost: integer('comments-per-post', 10, 0, 1000),
    seed: integer('seed', DEFAULT_SIZES.seed, 0, 2 ** 32 - 1),
    batch: integer('batch', 50_000, 100, 10_000_000),
    duration: number('duration', 5, 0.5, 3600),
    rounds: integer('rounds', 3, 1, 100),
    connections: integer('connections', 16, 1, 10_000),
    warmup: number('warmup', 2, 0, 600),
    database: values.database,
    minFreeGb: number('min-free-gb', 20, 0, 1e6),
    out: path.resolve(values.out ?? path.join(ROOT, 'bench', 'results', 'scale.json')),
    keep: values.keep === true,
    timeoutMin: number('timeout', 120, 1, 24 * 60),
  };
  if (options.posts * options.commentsPerPost > 2_147_483_647) throw new UsageError('--posts × --comments-per-post must stay below 2^31');
  return options;
}

// ---------------------------------------------------------------------------------------------
// The rows: deterministic functions of the id, written once in JS (SQLite) and once in SQL
// (PostgreSQL, below) so that both engines hold the same data.

const POSTS_EPOCH_MS = Date.UTC(2025, 0, 31);
const POST_SPACING_MS = 45_000;
const COMMENT_SPACING_MS = 60_000;

/** (id × 2654435761) mod 2^32: spreads ids over authors and texts. */
const mix = (id) => Math.imul(id, 0x9e3779b1) >>> 0;

const WORDS = (
  'the a of and to in is it that for on with as at by from or an not but service request query index ' +
  'cursor page post comment author reader schema table column row latency cache batch loader field ' +
  'event stream database commit version header token user fast slow simple careful quiet bright ' +
  'early late small large clear open steady write read ship measure test deploy review tune scale ' +
  'morning evening river mountain garden window coffee letter street market island forest harbour ' +
  'café naïve Zürich — "quoted" <tag> a&b it\'s 日本語'
).split(' ');

/** Short texts the rows pick from: 256 bodies of ~80 characters, 256 titles of 3–8 words. */
function textPools(seed) {
  const random = mulberry32(seed ^ 0x5ca1e);
  const word = () => WORDS[randomInt(random, 0, WORDS.length - 1)];
  const capital = (text) => text[0].toUpperCase() + text.slice(1);
  const bodies = [];
  for (let i = 0; i < 256; i++) {
    let text = word();
    while (text.length < 76) text += ` ${word()}`;
    bodies.push(`${capital(text)}.`);
  }
  const titles = [];
  for (let i = 0; i < 256; i++) titles.push(capital(Array.from({ length: randomInt(random, 3, 8) }, word).join(' ')));
  return { bodies, titles };
}

const postCreatedMs = (id) => POSTS_EPOCH_MS + id * POST_SPACING_MS + (mix(id) % POST_SPACING_MS);

function postRow(id, users, pools) {
  const h = mix(id);
  const createdMs = postCreatedMs(id);
  return {
    id,
    title: `Post ${id}: ${pools.titles[(h >>> 16) % pools.titles.length]}`,
    body: `${pools.bodies[(h >>> 20) % pools.bodies.length]} (post ${id})`,
    authorId: 1 + ((h >>> 8) % users),
    createdMs,
  };
}

/** The k-th comment (from 0) of a post created at postCreatedMs. */
function commentRow(id, postId, k, postCreatedMs, users, pools) {
  const h = mix(id);
  return {
    id,
    postId,
    body: `${pools.bodies[(h >>> 16) % pools.bodies.length]} (comment ${id})`,
    authorId: 1 + ((h >>> 8) % users),
    createdMs: postCreatedMs + (k + 1) * COMMENT_SPACING_MS + (h % COMMENT_SPACING_MS),
  };
}

/** The users exactly as bench/dataset.mjs makes them (one scrypt for the shared password). */
function forEachUser(options, user) {
  generateDataset({ users: options.users, posts: 0, commentsPerPost: 0, markdownPosts: 0, seed: options.seed }, { user, post: () => {}, comment: () => {} });
}

const yieldToEvents = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `batch(from, to)` over ids 1..total in steps of `size`; logs progress; {rows, ms, rowsPerSec}.
 * `rowsPerId`: rows written per id (comments by post).
 */
async function inBatches(label, total, size, batch, rowsPerId = 1) {
  const started = performance.now();
  let nextLog = started + 10_000;
  for (let from = 1; from <= total; from += size) {
    const to = Math.min(total, from + size - 1);
    await batch(from, to);
    // Between batches: signals (Ctrl-C, the timeout) get their turn during a synchronous load.
    await yieldToEvents();
    const now = performance.now();
    if (now >= nextLog || to === total) {
      const seconds = (now - started) / 1000;
      log(`  ${label}: ${fmt.int(to * rowsPerId)} / ${fmt.int(total * rowsPerId)} rows, ${fmt.int((to * rowsPerId) / seconds)} rows/s, ${seconds.toFixed(1)} s`);
      nextLog = now + 10_000;
    }
  }
  const ms = performance.now() - started;
  return { rows: total * rowsPerId, ms, rowsPerSec: (total * rowsPerId) / (ms / 1000) };
}

async function timed(step) {
  const started = performance.now();
  const result = await step();
  return { ms: performance.now() - started, result };
}

// ---------------------------------------------------------------------------------------------
// SQLite

async function loadSqlite(file, options, pools) {
  const Database = (await import('../dist/src/database/sqlite-driver.js')).loadSqliteDriver();
  const db = new Database(file);
  const phases = [];
  try {
    // The loading connection only: the service opens with synchronous=NORMAL and foreign_keys=ON.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = OFF');
    db.pragma('foreign_keys = OFF');
    db.pragma('cache_size = -1048576'); // 1 GiB
    const existing = db.prepare('SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM posts) + (SELECT COUNT(*) FROM comments) AS n').get();
    if (existing.n !== 0) throw new Error(`${file} is not empty: the scale bench loads into a fresh database`);

    const schemaQuery = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type, name");
    const schemaBefore = schemaQuery.all();
    const deferred = schemaBefore.filter((entry) => entry.type === 'index' && ['posts', 'comments'].includes(entry.tbl_name));
    for (const index of deferred) db.exec(`DROP INDEX "${index.name}"`);

    const user = db.prepare(
      'INSERT INTO users (id, name, email, password_hash, avatar_url, role, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)',
    );
    const post = db.prepare('INSERT INTO posts (id, title, body, author_id, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, 1)');
    const comment = db.prepare('INSERT INTO comments (id, post_id, body, author_id, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, 1)');

    const users = await timed(() =>
      db.transaction(() =>
        forEachUser(options, (u) => user.run(u.id, u.name, u.email, u.passwordHash, u.avatarUrl, u.role, sqliteDatetime(u.createdAt), sqliteDatetime(u.updatedAt))),
      )(),
    );
    phases.push({ name: 'users', rows: options.users, ms: users.ms, rowsPerSec: options.users / (users.ms / 1000) });

    const insertPosts = db.transaction((from, to) => {
      for (let id = from; id <= to; id++) {
        const p = postRow(id, options.users, pools);
        const at = sqliteDatetime(new Date(p.createdMs));
        post.run(id, p.title, p.body, p.authorId, at, at);
      }
    });
    phases.push({ name: 'posts', ...(await inBatches('posts', options.posts, options.batch, (from, to) => insertPosts(from, to))) });

    const perPost = options.commentsPerPost;
    if (perPost > 0) {
      const insertComments = db.transaction((fromPost, toPost) => {
        for (let postId = fromPost; postId <= toPost; postId++) {
          const postMs = postCreatedMs(postId);
          for (let k = 0; k < perPost; k++) {
            const c = commentRow((postId - 1) * perPost + k + 1, postId, k, postMs, options.users, pools);
            const at = sqliteDatetime(new Date(c.createdMs));
            comment.run(c.id, postId, c.body, c.authorId, at, at);
          }
        }
      });
      // Batches of whole posts, --batch comments each (rounded to whole posts).
      const postsPerBatch = Math.max(1, Math.floor(options.batch / perPost));
      phases.push({ name: 'comments', ...(await inBatches('comments', options.posts, postsPerBatch, (from, to) => insertComments(from, to), perPost)) });
    }

    for (const index of deferred) {
      log(`  index ${index.name}…`);
      const { ms } = await timed(() => db.exec(index.sql));
      phases.push({ name: `index ${index.name}`, ms });
    }
    const schemaAfter = schemaQuery.all();
    if (JSON.stringify(schemaAfter) !== JSON.stringify(schemaBefore)) {
      throw new Error(`the schema differs after the load:\n  before ${JSON.stringify(schemaBefore)}\n  after  ${JSON.stringify(schemaAfter)}`);
    }
    const { ms: checkpointMs } = await timed(() => db.pragma('wal_checkpoint(TRUNCATE)'));
    phases.push({ name: 'WAL checkpoint', ms: checkpointMs });
    const check = await timed(() => checkRows(db.prepare(CHECK_SQL).get(), options));
    phases.push({ name: 'check (counts, id and reference ranges)', ms: check.ms });
    return { phases, indexes: deferred.map((index) => index.name) };
  } finally {
    db.close();
  }
}

/** Foreign keys hold by construction: every reference is within the contiguous id range of its table. */
const CHECK_SQL = `SELECT
  (SELECT COUNT(*) FROM users) AS users, (SELECT MIN(id) FROM users) AS users_min, (SELECT MAX(id) FROM users) AS users_max,
  (SELECT COUNT(*) FROM posts) AS posts, (SELECT MIN(id) FROM posts) AS posts_min, (SELECT MAX(id) FROM posts) AS posts_max,
  (SELECT MIN(author_id) FROM posts) AS posts_author_min, (SELECT MAX(author_id) FROM posts) AS posts_author_max,
  (SELECT COUNT(*) FROM comments) AS comments, (SELECT MIN(id) FROM comments) AS comments_min, (SELECT MAX(id) FROM comments) AS comments_max,
  (SELECT MIN(post_id) FROM comments) AS comments_post_min, (SELECT MAX(post_id) FROM comments) AS comments_post_max,
  (SELECT MIN(author_id) FROM comments) AS comments_author_min, (SELECT MAX(author_id) FROM comments) AS comments_author_max`;

function checkRows(raw, options) {
  const row = Object.fromEntries(Object.entries(raw).map(([key, value]) => [key, value === null ? null : Number(value)]));
  const comments = options.posts * options.commentsPerPost;
  const problems = [];
  const expect = (what, ok) => ok || problems.push(what);
  expect(`users 1..${options.users}`, row.users === options.users && row.users_min === 1 && row.users_max === options.users);
  expect(`posts 1..${options.posts}`, row.posts === options.posts && row.posts_min === 1 && row.posts_max === options.posts);
  expect('posts.author_id within users', row.posts_author_min >= 1 && row.posts_author_max <= options.users);
  if (comments > 0) {
    expect(`comments 1..${comments}`, row.comments === comments && row.comments_min === 1 && row.comments_max === comments);
    expect('comments.post_id within posts', row.comments_post_min === 1 && row.comments_post_max === options.posts);
    expect('comments.author_id within users', row.comments_author_min >= 1 && row.comments_author_max <= options.users);
  } else {
    expect('no comments', row.comments === 0);
  }
  if (problems.length > 0) throw new Error(`the loaded rows are not as written: ${problems.join('; ')} (${JSON.stringify(row)})`);
}

// ---------------------------------------------------------------------------------------------
// PostgreSQL

/** h = mix(id) in SQL, on bigint. */
const mixSql = (id) => `((${id})::bigint * 2654435761) % 4294967296`;
/** A timestamptz from epoch milliseconds, exactly (whole seconds through float8, then the milliseconds). */
const msToTimestamp = (ms) => `(to_timestamp((${ms}) / 1000) + ((${ms}) % 1000) * interval '1 millisecond')`;

// $1 from, $2 to, $3 titles, $4 bodies, $5 users, $6 epoch ms: postRow() in SQL.
const PG_POSTS = `INSERT INTO posts (id, title, body, author_id, created_at, updated_at, version)
SELECT g, 'Post ' || g || ': ' || ($3::text[])[1 + (h / 65536) % 256], ($4::text[])[1 + (h / 1048576) % 256] || ' (post ' || g || ')',
  1 + (h / 256) % $5::bigint, t, t, 1
FROM generate_series($1::bigint, $2::bigint) g
CROSS JOIN LATERAL (SELECT ${mixSql('g')} AS h) a
CROSS JOIN LATERAL (SELECT $6::bigint + g * ${POST_SPACING_MS} + h % ${POST_SPACING_MS} AS ms) b
CROSS JOIN LATERAL (SELECT ${msToTimestamp('ms')} AS t) c`;

// $1 from, $2 to (comment ids), $3 bodies, $4 users, $5 epoch ms, $6 comments per post: commentRow() in SQL.
const PG_COMMENTS = `INSERT INTO comments (id, post_id, body, author_id, created_at, updated_at, version)
SELECT g, p, ($3::text[])[1 + (h / 65536) % 256] || ' (comment ' || g || ')', 1 + (h / 256) % $4::bigint, t, t, 1
FROM generate_series($1::bigint, $2::bigint) g
CROSS JOIN LATERAL (SELECT (g - 1) / $6::bigint + 1 AS p, (g - 1) % $6::bigint AS k, ${mixSql('g')} AS h) a
CROSS JOIN LATERAL (SELECT $5::bigint + p * ${POST_SPACING_MS} + (${mixSql('p')}) % ${POST_SPACING_MS} + (k + 1) * ${COMMENT_SPACING_MS} + h % ${COMMENT_SPACING_MS} AS ms) b
CROSS JOIN LATERAL (SELECT ${msToTimestamp('ms')} AS t) c`;

const PG_SCHEMA_FKS = `SELECT c.conrelid::regclass::text AS tbl, quote_ident(c.conname) AS name, pg_get_constraintdef(c.oid) AS def
FROM pg_constraint c WHERE c.contype = 'f' AND c.conrelid IN ('posts'::regclass, 'comments'::regclass) ORDER BY 1, 2`;
const PG_SCHEMA_INDEXES = `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
FROM pg_index i WHERE i.indrelid IN ('posts'::regclass, 'comments'::regclass)
  AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.contype IN ('p', 'u', 'x'))
ORDER BY 1`;

async function loadPostgres(url, options, pools) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const phases = [];
  try {
    const { rows: counted } = await client.query('SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM posts) + (SELECT COUNT(*) FROM comments) AS n');
    if (Number(counted[0].n) !== 0) throw new Error('the database is not empty: the scale bench loads into a fresh database');
    await client.query("SET maintenance_work_mem = '512MB'");
    await client.query('SET synchronous_commit = off');

    const fks = (await client.query(PG_SCHEMA_FKS)).rows;
    const indexes = (await client.query(PG_SCHEMA_INDEXES)).rows;
    for (const fk of fks) await client.query(`ALTER TABLE ${fk.tbl} DROP CONSTRAINT ${fk.name}`);
    for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);

    const userRows = [];
    forEachUser(options, (u) => userRows.push([u.id, u.name, u.email, u.passwordHash, u.avatarUrl, u.role, u.createdAt.toISOString(), u.updatedAt.toISOString()]));
    const users = await timed(() =>
      client.query(
        'INSERT INTO users (id, name, email, password_hash, avatar_url, role, created_at, updated_at, version) ' +
          'SELECT *, 1 FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[], $8::timestamptz[])',
        userRows[0].map((_, column) => userRows.map((row) => row[column])),
      ),
    );
    phases.push({ name: 'users', rows: options.users, ms: users.ms, rowsPerSec: options.users / (users.ms / 1000) });

    const statementRows = options.batch * 10;
    phases.push({
      name: 'posts',
      ...(await inBatches('posts', options.posts, statementRows, (from, to) =>
        client.query(PG_POSTS, [from, to, pools.titles, pools.bodies, options.users, POSTS_EPOCH_MS]),
      )),
    });
    const comments = options.posts * options.commentsPerPost;
    if (comments > 0) {
      phases.push({
        name: 'comments',
        ...(await inBatches('comments', comments, statementRows, (from, to) =>
          client.query(PG_COMMENTS, [from, to, pools.bodies, options.users, POSTS_EPOCH_MS, options.commentsPerPost]),
        )),
      });
    }
    for (const table of ['users', 'posts', 'comments']) {
      await client.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), GREATEST((SELECT MAX(id) FROM ${table}), 1))`);
    }
    for (const index of indexes) {
      log(`  index ${index.name}…`);
      const { ms } = await timed(() => client.query(index.def));
      phases.push({ name: `index ${index.name}`, ms });
    }
    for (const fk of fks) {
      log(`  foreign key ${fk.name}…`);
      const { ms } = await timed(() => client.query(`ALTER TABLE ${fk.tbl} ADD CONSTRAINT ${fk.name} ${fk.def}`));
      phases.push({ name: `foreign key ${fk.name} (validated)`, ms });
    }
    const fksAfter = (await client.query(PG_SCHEMA_FKS)).rows;
    const indexesAfter = (await client.query(PG_SCHEMA_INDEXES)).rows;
    if (JSON.stringify([fks, indexes]) !== JSON.stringify([fksAfter, indexesAfter])) {
      throw new Error(`the schema differs after the load:\n  before ${JSON.stringify([fks, indexes])}\n  after  ${JSON.stringify([fksAfter, indexesAfter])}`);
    }
    // What autovacuum would have done long ago on a live database: statistics, visibility map, hint bits.
    log('  VACUUM (ANALYZE)…');
    const vacuum = await timed(() => client.query('VACUUM (ANALYZE)'));
    phases.push({ name: 'VACUUM (ANALYZE)', ms: vacuum.ms });
    const checkpoint = await timed(() => client.query('CHECKPOINT').catch((error) => log(`  CHECKPOINT not run: ${error.message}`)));
    phases.push({ name: 'CHECKPOINT', ms: checkpoint.ms });
    const check = await timed(async () => checkRows((await client.query(CHECK_SQL)).rows[0], options));
    phases.push({ name: 'check (counts, id and reference ranges)', ms: check.ms });
    return { phases, indexes: indexes.map((index) => index.name), foreignKeys: fks.map((fk) => fk.name) };
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Disk, sizes

/** Free bytes on the file system holding `dir` (what `df` shows as available), from the closest existing ancestor. */
async function freeBytes(dir) {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    try {
      const info = await statfs(current);
      return { bytes: info.bavail * info.bsize, at: current };
    } catch (error) {
      if (current === path.dirname(current)) throw error;
    }
  }
}

const LOCAL_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]', '']);

/** Where the data will go: the temp dir (SQLite), or the PostgreSQL data directory when the server is local. */
async function checkDisk(options, notes) {
  let where = os.tmpdir();
  if (options.database) {
    const host = new URL(options.database).hostname;
    if (!LOCAL_HOSTS.has(host)) {
      notes.push(`Free disk not checked: PostgreSQL at ${host} is not on this machine.`);
      return null;
    }
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: options.database });
    await client.connect();
    try {
      where = (await client.query('SHOW data_directory')).rows[0].data_directory;
    } catch (error) {
      notes.push(`PostgreSQL data directory unknown (${error.message}): free disk checked on ${where}.`);
    } finally {
      await client.end();
    }
  }
  const free = await freeBytes(where);
  const gb = free.bytes / 1024 ** 3;
  log(`scale: ${gb.toFixed(1)} GB free on the file system of ${free.at}`);
  if (gb < options.minFreeGb) {
    throw new Error(`only ${gb.toFixed(1)} GB free on the file system of ${free.at}: the scale bench needs at least ${options.minFreeGb} GB (--min-free-gb)`);
  }
  return { path: free.at, freeGb: Math.round(gb * 10) / 10 };
}

async function databaseBytes(database) {
  const parsed = parseDatabaseUrl(database.url);
  if (parsed.type === 'sqlite') {
    const dir = path.dirname(parsed.url);
    let total = 0;
    for (const name of await readdir(dir)) {
      if (name.startsWith(path.basename(parsed.url))) total += (await stat(path.join(dir, name))).size;
    }
    return total;
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: parsed.url });
  await client.connect();
  try {
    return Number((await client.query('SELECT pg_database_size(current_database()) AS n')).rows[0].n);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Plans: the statements the service runs for a page (src/posts/posts.service.ts,
// src/comments/comments.service.ts), with the column lists taken from the build.

async function listStatements(options) {
  const { POST_COLUMNS } = await import(pathToFileURL(path.join(ROOT, 'dist', 'src', 'posts', 'post.rows.js')).href);
  const { COMMENT_COLUMNS } = await import(pathToFileURL(path.join(ROOT, 'dist', 'src', 'comments', 'comment.rows.js')).href);
  const { prefixedUserColumns } = await import(pathToFileURL(path.join(ROOT, 'dist', 'src', 'users', 'user.rows.js')).href);
  const middle = Math.ceil(options.posts / 2);
  // CommentsService.listForPosts with authors, as the GraphQL post page's comments loader sends it for one post.
  const batched =
    `SELECT ${COMMENT_COLUMNS}, ${prefixedUserColumns('author_')} FROM comments c JOIN users u ON u.id = c.author_id WHERE c.id IN (SELECT page.id FROM ` +
    '(SELECT ranked.id AS id, ROW_NUMBER() OVER (PARTITION BY ranked.post_id ORDER BY ranked.id) AS rn ' +
    'FROM comments ranked WHERE ranked.post_id IN ($1)) page WHERE page.rn <= $2) ORDER BY c.id';
  return [
    { name: 'posts, first page', sql: `SELECT ${POST_COLUMNS} FROM posts p ORDER BY p.id DESC LIMIT $1`, params: [21], ordered: true },
    { name: `posts, middle page (after id ${middle})`, sql: `SELECT ${POST_COLUMNS} FROM posts p WHERE p.id < $1 ORDER BY p.id DESC LIMIT $2`, params: [middle, 21], ordered: true },
    { name: 'posts, last page (after id 21)', sql: `SELECT ${POST_COLUMNS} FROM posts p WHERE p.id < $1 ORDER BY p.id DESC LIMIT $2`, params: [21, 21], ordered: true },
    { name: `comments of post ${middle}`, sql: `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.post_id = $1 ORDER BY c.id LIMIT $2`, params: [middle, 21], ordered: true },
    { name: `GraphQL post page: comments with authors of post ${middle} (batched)`, sql: batched, params: [middle, 50] },
  ];
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const EXECUTIONS = 200;

/**
 * Does the plan read posts and comments through an index (the primary key, (post_id, id)) and,
 * for a page (`ordered`), in index order without a sort? A scan of the 1,000 users is fine.
 */
function usesIndex(kind, plan, statement) {
  if (kind === 'sqlite') {
    return !/^\s*SCAN (c|ranked)$/m.test(plan) && !(statement.ordered && /TEMP B-TREE/.test(plan)) && /(PRIMARY KEY|USING (COVERING )?INDEX|^\s*SCAN p$)/m.test(plan);
  }
  return /Index (Only )?Scan/.test(plan) && !/Seq Scan on (posts|comments)/.test(plan) && !(statement.ordered && /\bSort\b/.test(plan));
}

async function explainSqlite(file, statements) {
  const Database = (await import('../dist/src/database/sqlite-driver.js')).loadSqliteDriver();
  const db = new Database(file, { readonly: true });
  try {
    return statements.map((statement) => {
      const sql = statement.sql.replace(/\$\d+/g, '?');
      const started = performance.now();
      const depth = new Map([[0, -1]]);
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...statement.params)
        .map((row) => {
          depth.set(row.id, (depth.get(row.parent) ?? -1) + 1);
          return `${'  '.repeat(depth.get(row.id))}${row.detail}`;
        })
        .join('\n');
      const explainMs = performance.now() - started;
      const prepared = db.prepare(sql);
      const times = [];
      let rows = 0;
      for (let i = 0; i < EXECUTIONS; i++) {
        const t0 = performance.now();
        rows = prepared.all(...statement.params).length;
        times.push(performance.now() - t0);
      }
      return { ...statement, plan, explainMs, indexUsed: usesIndex('sqlite', plan, statement), rows, executionMedianMs: median(times) };
    });
  } finally {
    db.close();
  }
}

async function explainPostgres(url, statements) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const results = [];
    for (const statement of statements) {
      const started = performance.now();
      const { rows: planRows } = await client.query(`EXPLAIN ${statement.sql}`, statement.params);
      const explainMs = performance.now() - started;
      const plan = planRows.map((row) => row['QUERY PLAN']).join('\n');
      const { rows: analyzed } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.params);
      const times = [];
      let rows = 0;
      for (let i = 0; i < EXECUTIONS; i++) {
        const t0 = performance.now();
        rows = (await client.query(statement.sql, statement.params)).rows.length;
        times.push(performance.now() - t0);
      }
      results.push({
        ...statement,
        plan,
        analyzed: analyzed.map((row) => row['QUERY PLAN']).join('\n'),
        explainMs,
        indexUsed: usesIndex('postgres', plan, statement),
        rows,
        executionMedianMs: median(times),
      });
    }
    return results;
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// HTTP scenarios

const JSON_HEADERS = { 'content-type': 'application/json' };

function scenarioList(options) {
  const middle = Math.ceil(options.posts / 2);
  const randomPost = (random) => randomInt(random, 1, options.posts);
  const page = (after) => `/posts?limit=20${after === undefined ? '' : `&cursor=${encodeCursor(after)}`}`;
  const graphql = (id) => ({ method: 'POST', path: '/graphql', headers: JSON_HEADERS, body: JSON.stringify({ query: POST_PAGE_QUERY, variables: { id } }) });
  return [
    { id: 'first-page', name: 'GET /posts?limit=20 (first page)', request: () => ({ method: 'GET', path: page() }), expectIds: [options.posts, options.posts - 19] },
    { id: 'middle-page', name: `GET /posts?limit=20&cursor=v1:${middle} (middle page)`, request: () => ({ method: 'GET', path: page(middle) }), expectIds: [middle - 1, middle - 20] },
    // Newest first: the last page is the one after id 21 (ids 20..1).
    { id: 'last-page', name: 'GET /posts?limit=20&cursor=v1:21 (last page)', request: () => ({ method: 'GET', path: page(21) }), expectIds: [20, 1], last: true },
    { id: 'post', name: 'GET /posts/{random id}', dynamic: true, request: (random) => ({ method: 'GET', path: `/posts/${randomPost(random)}` }) },
    { id: 'comments', name: 'GET /posts/{random id}/comments', dynamic: true, request: (random) => ({ method: 'GET', path: `/posts/${randomPost(random)}/comments` }) },
    { id: 'graphql-post-page', name: 'GraphQL post page (random ids)', graphql: true, dynamic: true, request: (random) => graphql(randomPost(random)) },
  ];
}

/** One request per scenario before measuring: 200, the right ids on the pages, no GraphQL errors. */
async function checkScenario(scenario, baseUrl, options) {
  const request = scenario.request(mulberry32(1), 0, 'service');
  const response = await send(baseUrl, request);
  const label = `${request.method} ${request.path}`;
  if (response.status !== 200) throw new Error(`${label} answered HTTP ${response.status}: ${response.body.slice(0, 300)}`);
  if (scenario.graphql) {
    const body = JSON.parse(response.body);
    if (body.errors || !body.data?.post) throw new Error(`${label} answered ${response.body.slice(0, 300)}`);
    if (options.commentsPerPost > 0 && body.data.post.comments.length !== Math.min(options.commentsPerPost, 50)) {
      throw new Error(`${label}: ${body.data.post.comments.length} comments, expected ${Math.min(options.commentsPerPost, 50)}`);
    }
  }
  if (scenario.expectIds) {
    const ids = [...response.body.matchAll(/"id":(\d+)/g)].map((match) => Number(match[1]));
    const [first, last] = scenario.expectIds;
    if (ids.length !== 20 || ids[0] !== first || ids[19] !== last) {
      throw new Error(`${label}: expected posts ${first}..${last}, got ids ${ids.slice(0, 3).join(', ')}…${ids.slice(-2).join(', ')} (${ids.length})`);
    }
    const next = response.headers.get('link');
    if (scenario.last && next && /rel="?next/.test(next)) throw new Error(`${label}: the last page still links a next page (${next})`);
    if (!scenario.last && !(next && /rel="?next/.test(next))) throw new Error(`${label}: no Link rel="next" on a page before the last`);
  }
}

// ---------------------------------------------------------------------------------------------
// Output

const seconds = (ms) => (ms / 1000).toFixed(1);
const loadAverage = () => os.loadavg().map((value) => Math.round(value * 100) / 100);

function renderMarkdown(report) {
  const lines = [];
  const { options, dataset } = report;
  const git = report.git ? ` at ${report.git.commit}${report.git.dirty ? ' (with uncommitted changes)' : ''}` : '';
  lines.push(`## Blog service scale check${git} (${report.startedAt})`, '');
  lines.push(`- Machine: ${report.machine.cpu}, ${report.machine.cores} cores, ${report.machine.memoryGb} GB, Node ${report.machine.node}, ${report.machine.platform}`);
  lines.push(
    `- Load average (1/5/15 min): ${report.machine.loadAverageAtStart.join(' / ')} at the start, ${report.loadAverageBeforeMeasuring.join(' / ')} before measuring, ${report.loadAverageAtEnd.join(' / ')} at the end`,
  );
  lines.push(
    `- Database: ${report.database}; ${fmt.int(dataset.users)} users, ${fmt.int(dataset.posts)} posts, ${fmt.int(dataset.comments)} comments; ${(dataset.bytes / 1024 ** 3).toFixed(2)} GB on disk`,
  );
  lines.push(`- Loaded in ${seconds(report.load.totalMs)} s (rows ${seconds(report.load.rowsMs)} s, ${fmt.int(report.load.rowsPerSec)} rows/s overall)`);
  lines.push(
    `- Service: first start (migrations) ${fmt.int(report.service.firstStartMs)} ms; cold start on the loaded database ${fmt.int(report.service.coldStartMs)} ms, idle RSS ${fmt.ms(report.service.idleRssMb)} MB, RSS after the load test ${fmt.ms(report.service.rssAfterMb)} MB`,
  );
  lines.push(`- autocannon: ${options.connections} connections, ${options.rounds} round(s) of ${options.duration} s per scenario, ${options.warmup} s warm-up each`);
  lines.push('', '| Load step | rows | seconds | rows/s |', '|---|---:|---:|---:|');
  for (const phase of report.load.phases) {
    lines.push(`| ${phase.name} | ${phase.rows === undefined ? '' : fmt.int(phase.rows)} | ${seconds(phase.ms)} | ${phase.rowsPerSec === undefined ? '' : fmt.int(phase.rowsPerSec)} |`);
  }
  lines.push(`| **total** | ${fmt.int(dataset.users + dataset.posts + dataset.comments)} | ${seconds(report.load.totalMs)} | |`);
  lines.push('', '| Scenario | req/s | p50 ms | p99 ms | errors | SQL/req | load avg |', '|---|---:|---:|---:|---:|---:|---:|');
  for (const scenario of report.scenarios) {
    const s = scenario.result;
    lines.push(`| ${scenario.name} | ${fmt.int(s.reqPerSec)} | ${fmt.ms(s.p50)} | ${fmt.ms(s.p99)} | ${s.errors} | ${fmt.sql(s.sqlPerRequest)} | ${scenario.loadAverage} |`);
  }
  const { pages } = report;
  lines.push('');
  lines.push(
    `Last page vs first page: first-page req/s ÷ last-page req/s = ${pages.lastSlowdown.toFixed(2)} (p50 ${fmt.ms(pages.last.p50)} vs ${fmt.ms(pages.first.p50)} ms): ${pages.pass ? 'within' : 'NOT within'} 1.5×. Middle page: ${pages.middleSlowdown.toFixed(2)}.`,
  );
  lines.push('', `| Statement (${report.kind}) | index used | EXPLAIN ms | execution ms (median of ${EXECUTIONS}) | rows |`, '|---|---|---:|---:|---:|');
  for (const plan of report.plans) {
    lines.push(`| ${plan.name} | ${plan.indexUsed ? 'yes' : 'NO'} | ${plan.explainMs.toFixed(2)} | ${plan.executionMedianMs.toFixed(3)} | ${plan.rows} |`);
  }
  for (const plan of report.plans) {
    lines.push('', `${plan.name}: \`${plan.sql}\` with ${JSON.stringify(plan.params)}`, '```', plan.analyzed ?? plan.plan, '```');
  }
  lines.push('');
  lines.push('req/s: mean over rounds; p50/p99 over all rounds, whole milliseconds as autocannon records them. errors: connection');
  lines.push('errors + timeouts + non-2xx (+ GraphQL error bodies). SQL/req: db_queries_total delta / requests sent. load avg: 1-min');
  lines.push('load average after the scenario (other processes on the machine count too).');
  if (report.notes.length > 0) {
    lines.push('', 'Notes:');
    for (const note of report.notes) lines.push(`- ${note}`);
  }
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

async function main() {
  let options;
  try {
    options = readOptions(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof TypeError)) throw error;
    log(`${error.message}\n\n${HELP}`);
    return 2;
  }
  if (options.help) {
    out(HELP);
    return 0;
  }
  setTimeout(() => void abort(`timed out after ${options.timeoutMin} min`, 1), options.timeoutMin * 60_000).unref();
  if (!existsSync(SERVICE_ENTRY)) {
    log(`${path.relative(ROOT, SERVICE_ENTRY)} is missing: run \`npm run build\` first (\`npm run bench:scale\` does).`);
    return 1;
  }
  const report = {
    startedAt: new Date().toISOString(),
    machine: machine(),
    git: gitState(),
    options: { ...options, help: undefined, database: options.database ? 'postgres' : 'sqlite' },
    notes: [],
  };
  report.disk = await checkDisk(options, report.notes);

  const tempDir = await mkdtemp(path.join(os.tmpdir(), 'blog-scale-'));
  cleanups.push(() => (options.keep ? log(`kept ${tempDir}`) : rm(tempDir, { recursive: true, force: true })));
  const database = await prepareDatabase(options, tempDir);
  cleanups.push(() => database.drop());
  report.database = database.describe;
  report.kind = database.kind;
  log(`scale: ${database.describe}`);

  // 1. Schema: the service's own migrations.
  log('scale: first start (migrations)…');
  const migrating = await startService(database.url, 'service (migrations)');
  const firstStartMs = migrating.coldStartMs;
  await migrating.stop();

  // 2. The rows, straight into the database.
  const comments = options.posts * options.commentsPerPost;
  log(`scale: loading ${fmt.int(options.users)} users, ${fmt.int(options.posts)} posts, ${fmt.int(comments)} comments…`);
  const pools = textPools(options.seed);
  const parsed = parseDatabaseUrl(database.url);
  const loadStarted = performance.now();
  const loaded = parsed.type === 'sqlite' ? await loadSqlite(parsed.url, options, pools) : await loadPostgres(parsed.url, options, pools);
  const totalMs = performance.now() - loadStarted;
  const rowPhases = loaded.phases.filter((phase) => phase.rows !== undefined);
  const rowsMs = rowPhases.reduce((sum, phase) => sum + phase.ms, 0);
  const totalRows = options.users + options.posts + comments;
  report.load = { ...loaded, totalMs, rowsMs, rowsPerSec: totalRows / (rowsMs / 1000) };
  report.dataset = { users: options.users, posts: options.posts, comments, bytes: await databaseBytes(database) };
  log(`scale: loaded in ${seconds(totalMs)} s (rows ${seconds(rowsMs)} s, ${fmt.int(report.load.rowsPerSec)} rows/s); ${(report.dataset.bytes / 1024 ** 3).toFixed(2)} GB`);

  // 3. The service on the loaded database.
  log('scale: starting the service…');
  const service = await startService(database.url, 'service');
  await new Promise((resolve) => setTimeout(resolve, 500));
  report.service = { firstStartMs, coldStartMs: service.coldStartMs, idleRssMb: await rssMb(service.child.pid) };
  log(`  ${service.url} (cold start ${Math.round(service.coldStartMs)} ms)`);
  const target = { name: 'service', url: service.url, pid: service.child.pid };
  const scenarios = scenarioList(options);
  for (const scenario of scenarios) await checkScenario(scenario, service.url, options);

  report.loadAverageBeforeMeasuring = loadAverage();
  let seed = options.seed * 1000;
  if (options.warmup > 0) {
    log('scale: warm-up…');
    for (const scenario of scenarios) await cannon(scenario, target, options.warmup, seed++, options.connections);
  }
  const rounds = new Map(scenarios.map((scenario) => [scenario.id, []]));
  const loads = new Map(scenarios.map((scenario) => [scenario.id, []]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const scenario of scenarios) {
      if (service.exitCode !== null) throw new Error(`the service exited (${service.exitCode}) during the measurements`);
      const result = await measureRound(scenario, target, options, seed++);
      rounds.get(scenario.id).push(result);
      loads.get(scenario.id).push(os.loadavg()[0]);
      log(`  round ${round} ${scenario.name.padEnd(52)} ${fmt.int(result.reqPerSec).padStart(7)} req/s  p50 ${fmt.ms(result.p50)} ms  p99 ${fmt.ms(result.p99)} ms  errors ${result.errors}`);
    }
  }
  report.service.rssAfterMb = await rssMb(service.child.pid);
  await service.stop();
  report.scenarios = scenarios.map((scenario) => ({
    id: scenario.id,
    name: scenario.name,
    loadAverage: (loads.get(scenario.id).reduce((sum, value) => sum + value, 0) / options.rounds).toFixed(2),
    result: summarize(rounds.get(scenario.id), target, options),
  }));
  const byId = Object.fromEntries(report.scenarios.map((scenario) => [scenario.id, scenario.result]));
  const lastSlowdown = byId['first-page'].reqPerSec / byId['last-page'].reqPerSec;
  report.pages = {
    first: byId['first-page'],
    last: byId['last-page'],
    lastSlowdown,
    middleSlowdown: byId['first-page'].reqPerSec / byId['middle-page'].reqPerSec,
    pass: lastSlowdown <= 1.5,
  };
  if (report.scenarios.some((scenario) => scenario.result.errors > 0)) report.notes.push('Some requests failed: see the errors column.');

  // 4. Plans, on the database alone (the service stopped).
  log('scale: query plans…');
  const statements = await listStatements(options);
  report.plans = parsed.type === 'sqlite' ? await explainSqlite(parsed.url, statements) : await explainPostgres(parsed.url, statements);
  if (report.plans.some((plan) => !plan.indexUsed)) report.notes.push('A list statement does not read through an index (see the plans).');

  // 5. Results.
  report.loadAverageAtEnd = loadAverage();
  report.finishedAt = new Date().toISOString();
  out(renderMarkdown(report));
  await mkdir(path.dirname(options.out), { recursive: true });
  await writeFile(options.out, `${JSON.stringify(report, null, 2)}\n`);
  log(`\nscale: results in ${path.relative(process.cwd(), options.out) || options.out}`);
  return report.pages.pass && !report.plans.some((plan) => !plan.indexUsed) ? 0 : 1;
}

runScript('scale', main);
