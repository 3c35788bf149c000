/**
 * The bench dataset: deterministic (a seeded PRNG), loaded straight into the database the
 * service's migrations created, in one transaction. Rows look like what the service writes:
 * timestamps as TypeORM stores them, `version` 1, passwords as `scrypt$N$r$p$salt$key`, and the
 * publication fields of CONTRACT §13 by the service's own rules (the built `slugify` and
 * `ContentRenderer`, see `writeRules`): a slug from the title (first free of `base`, `base-2`…,
 * each one a `post_slugs` row), `body_html`, `excerpt` and `reading_time_minutes` of the body, a
 * comment's `body_html`. Besides the plain-text posts, `markdownPosts` posts of ~20 KB Markdown.
 *
 * Usage as a script (the driver imports it instead):
 *   node bench/dataset.mjs --database sqlite:/tmp/x.sqlite [--users 200 --posts 2000 --comments-per-post 10 --markdown-posts 50 --seed 42]
 */
import { Buffer } from 'node:buffer';
import { createHash, scryptSync } from 'node:crypto';
import process from 'node:process';
import { BENCH_PASSWORD, BENCH_PUBLIC_BASE_URL, firstFreeSlug, log, mulberry32, parseDatabaseUrl, randomInt, sqliteDatetime, userEmail, writeRules } from './shared.mjs';

export const DEFAULT_SIZES = { users: 200, posts: 2000, commentsPerPost: 10, markdownPosts: 50, seed: 42 };

const WORDS = (
  'the a of and to in is it that for on with as was at by be this from or an are not have had but ' +
  'service request query index cursor page post comment author reader writer schema table column row ' +
  'latency throughput cache batch loader resolver field type mutation subscription event socket stream ' +
  'database transaction commit rollback migration version header token secret policy admin user ' +
  'fast slow simple careful honest quiet bright early late small large clear open closed steady ' +
  'write read ship measure test deploy review refactor debug profile tune scale split merge keep drop ' +
  'morning evening river mountain garden window coffee letter street market island forest harbour ' +
  'because although whenever before after between without around through during under over'
).split(' ');

// The function words of WORDS: PostgreSQL's english configuration drops them from a search.
const STOP_WORDS = new Set(
  ('the a of and to in is it that for on with as was at by be this from or an are not have had but ' +
    'because although whenever before after between without around through during under over').split(' '),
);

/** The words of the posts a search finds on both databases (the bench's `q`). */
export const SEARCH_WORDS = WORDS.filter((word) => !STOP_WORDS.has(word));

// A few words that exercise escaping and multi-byte text in every representation.
const SPICE = ['"quoted"', 'café', 'naïve', 'Zürich', '—', 'back\\slash', '<tag>', 'a&b', "it's", '日本語', 'emoji 🚀', 'tab\there'];

const FIRST = ['Ada', 'Alan', 'Grace', 'Linus', 'Barbara', 'Ken', 'Margaret', 'Dennis', 'Frances', 'Edsger', 'Zoë', 'José', 'Łukasz', 'Chloé', 'Søren', 'Amara', 'Kenji', 'Priya', "O'Neil", 'Mia'];
const LAST = ['Lovelace', 'Turing', 'Hopper', 'Torvalds', 'Liskov', 'Thompson', 'Hamilton', 'Ritchie', 'Allen', 'Dijkstra', 'Müller', 'García', 'Nowak', 'Dubois', 'Kierkegaard', 'Okafor', 'Tanaka', 'Sharma', 'Smith', 'Rossi'];

/** The bench's tags: names as writers type them; their slugs are what posts carry. */
export const TAG_NAMES = [
  'News', 'Release Notes', 'Engineering', 'Design', 'Databases', 'GraphQL', 'Performance', 'Security', 'Tutorials', 'Opinion',
  'Caching', 'Node.js', 'TypeScript', 'PostgreSQL', 'SQLite', 'Redis', 'Observability', 'Testing', 'Accessibility', 'Café Culture',
];

/** A tag name's slug (CONTRACT §8): lower-case, each run of other characters one dash. */
export const slugOf = (name) => name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');

function words(random, count) {
  const out = [];
  for (let i = 0; i < count; i++) out.push(random() < 0.02 ? SPICE[randomInt(random, 0, SPICE.length - 1)] : WORDS[randomInt(random, 0, WORDS.length - 1)]);
  return out;
}

function sentence(random) {
  const parts = words(random, randomInt(random, 6, 16));
  if (random() < 0.3) parts[randomInt(random, 1, parts.length - 1)] += ',';
  const text = parts.join(' ');
  const end = random() < 0.1 ? '?' : random() < 0.05 ? '!' : '.';
  return text[0].toUpperCase() + text.slice(1) + end;
}

/** Paragraphs of sentences until about `length` characters. */
function prose(random, length) {
  const paragraphs = [];
  let current = [];
  let size = 0;
  while (size < length) {
    const next = sentence(random);
    current.push(next);
    size += next.length + 1;
    if (current.length >= randomInt(random, 3, 6)) {
      paragraphs.push(current.join(' '));
      current = [];
      size += 1;
    }
  }
  if (current.length > 0) paragraphs.push(current.join(' '));
  return paragraphs.join('\n\n');
}

function title(random) {
  const text = words(random, randomInt(random, 3, 10)).join(' ');
  return text[0].toUpperCase() + text.slice(1);
}

/** The service's password format, for the bench password: one scrypt, reused for every user. */
export function benchPasswordHash(seed = DEFAULT_SIZES.seed) {
  const salt = createHash('sha256').update(`blog-bench-salt:${seed}`).digest().subarray(0, 16);
  const key = scryptSync(BENCH_PASSWORD.normalize('NFC'), salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', 16384, 8, 1, Buffer.from(salt).toString('base64url'), key.toString('base64url')].join('$');
}

/** Slugs as the service gives them to new posts in id order: the title's, or `post-{id}`, first free of its candidates. */
function slugMaker(slugify) {
  const taken = new Set();
  return (title, id) => {
    const slug = firstFreeSlug(slugify(title) || `post-${id}`, taken);
    taken.add(slug);
    return slug;
  };
}

// The Markdown posts' words: none of them is (or stems to) a word of WORDS, so that the search
// and tag scenarios find exactly the posts they found before these posts existed.
const MD_WORDS = (
  'saffron basil lentil oregano thyme fennel quince apricot walnut barley sorrel parsnip kale leek shallot nutmeg ' +
  'clove ginger turmeric cumin paprika caraway dill chive mint sage rosemary tarragon juniper cardamom vanilla ' +
  'lemon lime plum cherry almond hazelnut pistachio chestnut pumpkin radish turnip beet carrot celery onion garlic ' +
  'potato tomato olive grape fig honey butter flour sugar simmer roast bake knead whisk chop braise toast steep ' +
  'crisp tender golden fragrant smoky tangy sweet bitter savoury velvety'
).split(' ');
const MD_GLUE = 'the a of and with in on'.split(' ');

function mdWords(random, count) {
  const out = [];
  for (let i = 0; i < count; i++) out.push(random() < 0.25 ? MD_GLUE[randomInt(random, 0, MD_GLUE.length - 1)] : MD_WORDS[randomInt(random, 0, MD_WORDS.length - 1)]);
  return out;
}
const pickMd = (random) => MD_WORDS[randomInt(random, 0, MD_WORDS.length - 1)];
const capital = (text) => text[0].toUpperCase() + text.slice(1);

/** A Markdown sentence with some inline markup: emphasis, code, a link (another site's, a relative one, or one of the blog's own origin). */
function mdSentence(random) {
  const parts = mdWords(random, randomInt(random, 6, 16));
  const at = randomInt(random, 1, parts.length - 1);
  const roll = random();
  if (roll < 0.15) parts[at] = `**${parts[at]}**`;
  else if (roll < 0.3) parts[at] = `*${parts[at]}*`;
  else if (roll < 0.4) parts[at] = `\`${parts[at]}()\``;
  else if (roll < 0.48) parts[at] = `[${parts[at]}](https://herbs.example/${pickMd(random)}?q=${pickMd(random)}&lang=en)`;
  else if (roll < 0.53) parts[at] = `[${parts[at]}](/tags/${pickMd(random)})`;
  else if (roll < 0.56) parts[at] = `[${parts[at]}](${BENCH_PUBLIC_BASE_URL}/tags/${pickMd(random)})`;
  else if (roll < 0.58) parts[at] = `~~${parts[at]}~~`;
  else if (roll < 0.6) parts[at] = `${parts[at]} & ${pickMd(random)} <${pickMd(random)}>`;
  return `${capital(parts.join(' '))}${random() < 0.1 ? '?' : '.'}`;
}

const mdParagraph = (random) => Array.from({ length: randomInt(random, 2, 5) }, () => mdSentence(random)).join(' ');

/** One section of a Markdown post: a heading, paragraphs, and one of a list, a code block, a table, a quote. */
function mdSection(random, index) {
  const blocks = [`## ${capital(mdWords(random, randomInt(random, 2, 5)).join(' '))}`, mdParagraph(random)];
  if (random() < 0.5) blocks.push(`### ${capital(mdWords(random, randomInt(random, 2, 4)).join(' '))}`, mdParagraph(random));
  switch (index % 5) {
    case 0:
      blocks.push(Array.from({ length: randomInt(random, 3, 7) }, () => `- ${capital(mdWords(random, randomInt(random, 3, 9)).join(' '))}`).join('\n'));
      break;
    case 1: {
      const name = pickMd(random);
      blocks.push(
        [
          '```js',
          `function ${name}(items, minutes) {`,
          `  const ${pickMd(random)} = items.filter((item) => item.${pickMd(random)} > ${randomInt(random, 1, 99)});`,
          `  return items.map((item) => ({ ...item, ${pickMd(random)}: minutes * ${randomInt(random, 2, 9)} })); // <${pickMd(random)}> & "${pickMd(random)}"`,
          '}',
          '```',
        ].join('\n'),
      );
      break;
    }
    case 2: {
      const rows = Array.from({ length: randomInt(random, 3, 6) }, () => `| ${capital(pickMd(random))} | ${randomInt(random, 1, 500)} | ${mdWords(random, randomInt(random, 2, 6)).join(' ')} |`);
      blocks.push(['| Ingredient | Grams | Notes |', '|:---|---:|:---:|', ...rows].join('\n'));
      break;
    }
    case 3:
      blocks.push(Array.from({ length: randomInt(random, 3, 6) }, (_, n) => `${n + 1}. ${capital(mdWords(random, randomInt(random, 3, 9)).join(' '))}`).join('\n'));
      break;
    default:
      blocks.push(`> ${mdParagraph(random)}`);
  }
  return blocks.join('\n\n');
}

/** A Markdown body of sections until about `length` characters. */
function markdownBody(random, length) {
  const sections = [];
  let size = 0;
  for (let index = 0; size < length; index++) {
    const section = mdSection(random, index);
    sections.push(section);
    size += section.length + 2;
  }
  return sections.join('\n\n');
}

/**
 * Calls `sink.user`, `sink.tag`, `sink.post`, `sink.comment` with every row, in id order (ids
 * from 1). User 1 is an admin, the others authors; two users in three have an avatar. The tags
 * are TAG_NAMES (ids from 1, made at the start of the posts); a post names its tags by id.
 * After the `posts` plain-text posts come `markdownPosts` posts with a ~20 KB Markdown body and
 * no tags, published before all of them (so the newest-first lists show the same posts as before
 * they existed), each with `commentsPerPost` comments too; their values come from a stream of
 * their own, so that every other row is what it was without them. `rules` (`writeRules()`) give
 * the §13 fields; they are needed when there are posts.
 */
export function generateDataset(options, sink, rules) {
  const { users, posts, commentsPerPost, markdownPosts, seed } = { ...DEFAULT_SIZES, ...options };
  if (!rules && posts + markdownPosts > 0) throw new Error('generateDataset: posts need the write rules (await writeRules())');
  const random = mulberry32(seed);
  const passwordHash = benchPasswordHash(seed);
  const start = Date.UTC(2025, 0, 1);
  const slugFor = rules ? slugMaker(rules.slugify) : null;
  const postRow = (fields, format) => {
    const rendered = rules.renderer.renderPost(fields.body, format);
    return {
      ...fields,
      slug: slugFor(fields.title, fields.id),
      bodyFormat: format,
      bodyHtml: rendered.bodyHtml,
      excerpt: rules.renderer.excerptOf(rendered),
      readingTimeMinutes: rendered.readingTimeMinutes,
    };
  };

  for (let id = 1; id <= users; id++) {
    const created = new Date(start + id * 60_000 + randomInt(random, 0, 59_999));
    sink.user({
      id,
      name: `${FIRST[randomInt(random, 0, FIRST.length - 1)]} ${LAST[randomInt(random, 0, LAST.length - 1)]}`,
      email: userEmail(id),
      passwordHash,
      avatarUrl: id % 3 === 0 ? null : `https://avatars.bench.example/u/${id}.png`,
      role: id === 1 ? 'admin' : 'author',
      createdAt: created,
      updatedAt: created,
    });
  }

  const postsStart = start + 30 * 86_400_000;
  // A stream of its own, so that the posts' other fields are what they were before tags.
  const tagRandom = mulberry32(seed ^ 0x7a95);
  TAG_NAMES.forEach((name, index) => sink.tag?.({ id: index + 1, name, slug: slugOf(name), createdAt: new Date(postsStart) }));
  const postTimes = new Float64Array(posts + markdownPosts + 1);
  for (let id = 1; id <= posts; id++) {
    const created = postsStart + id * 45_000 + randomInt(random, 0, 44_999);
    postTimes[id] = created;
    const updated = random() < 0.1 ? created + randomInt(random, 1, 86_400_000) : created;
    // Zero to three tags, the first ones more often (most used first is an order worth testing).
    const tagIds = new Set();
    for (let n = randomInt(tagRandom, 0, 3); n > 0; n--) tagIds.add(1 + Math.floor(tagRandom() ** 2 * TAG_NAMES.length));
    sink.post(
      postRow(
        {
          id,
          title: title(random),
          body: prose(random, randomInt(random, 900, 1150)),
          authorId: randomInt(random, 1, users),
          createdAt: new Date(created),
          updatedAt: new Date(updated),
          tagIds: [...tagIds].sort((a, b) => a - b),
        },
        'plain',
      ),
    );
  }
  const markdownRandom = mulberry32(seed ^ 0x3d0c);
  for (let k = 1; k <= markdownPosts; k++) {
    const id = posts + k;
    // An hour apart, the last an hour before the first plain-text post.
    const created = postsStart - (markdownPosts - k + 1) * 3_600_000 + randomInt(markdownRandom, 0, 59_999);
    postTimes[id] = created;
    sink.post(
      postRow(
        {
          id,
          title: capital(mdWords(markdownRandom, randomInt(markdownRandom, 3, 8)).join(' ')),
          body: markdownBody(markdownRandom, randomInt(markdownRandom, 19_500, 20_500)),
          authorId: randomInt(markdownRandom, 1, users),
          createdAt: new Date(created),
          updatedAt: new Date(created),
          tagIds: [],
        },
        'markdown',
      ),
    );
  }

  // Threads as a conversation has them: two comments in five reply to an earlier one of the
  // same post (at most five deep), one in twenty waits for or was refused by a moderator.
  let commentId = 0;
  const commentsOf = (postId, random) => {
    let at = postTimes[postId];
    const thread = [];
    for (let k = 0; k < commentsPerPost; k++) {
      at += randomInt(random, 1_000, 3_600_000);
      commentId++;
      const parent = k > 0 && random() < 0.4 ? thread[randomInt(random, 0, thread.length - 1)] : undefined;
      const depth = parent && parent.depth < 5 ? parent.depth + 1 : 1;
      const held = random() < 0.05;
      thread.push({ id: commentId, depth });
      // In this order: the stream gives each field what it gave before bodies were rendered.
      const status = held ? (random() < 0.5 ? 'pending' : 'hidden') : 'approved';
      const body = prose(random, randomInt(random, 40, 400));
      sink.comment({
        id: commentId,
        postId,
        parentId: depth > 1 ? parent.id : null,
        depth,
        status,
        body,
        bodyHtml: rules.renderer.renderComment(body),
        authorId: randomInt(random, 1, users),
        createdAt: new Date(at),
        updatedAt: new Date(at),
      });
    }
  };
  for (let postId = 1; postId <= posts; postId++) commentsOf(postId, random);
  for (let postId = posts + 1; postId <= posts + markdownPosts; postId++) commentsOf(postId, markdownRandom);
  return { users, posts: posts + markdownPosts, markdownPosts, comments: commentId };
}

/** Loads the dataset into a migrated, empty SQLite file in one transaction. */
export async function loadSqlite(file, options) {
  const Database = (await import('../dist/src/database/sqlite-driver.js')).loadSqliteDriver();
  const rules = await writeRules();
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    const existing = db.prepare('SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM posts) AS n').get();
    if (existing.n !== 0) throw new Error(`${file} is not empty: the bench loads into a fresh database`);
    const user = db.prepare(
      'INSERT INTO users (id, name, email, password_hash, avatar_url, role, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1)',
    );
    const post = db.prepare(
      // Published when written (as the migration makes every post that existed before states).
      'INSERT INTO posts (id, title, slug, body, body_format, body_html, excerpt, reading_time_minutes, author_id, created_at, updated_at, status, published_at, group_published_at, version) ' +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'published', ?, ?, 1)",
    );
    const postSlug = db.prepare('INSERT INTO post_slugs (slug, post_id) VALUES (?, ?)');
    const comment = db.prepare(
      'INSERT INTO comments (id, post_id, parent_id, depth, status, body, body_html, author_id, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)',
    );
    const tag = db.prepare('INSERT INTO tags (id, name, slug, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, 1)');
    const postTag = db.prepare('INSERT INTO post_tags (post_id, tag_id) VALUES (?, ?)');
    const counts = db.transaction(() =>
      generateDataset(options, {
        user: (u) => user.run(u.id, u.name, u.email, u.passwordHash, u.avatarUrl, u.role, sqliteDatetime(u.createdAt), sqliteDatetime(u.updatedAt)),
        tag: (t) => tag.run(t.id, t.name, t.slug, sqliteDatetime(t.createdAt), sqliteDatetime(t.createdAt)),
        post: (p) => {
          const at = sqliteDatetime(p.createdAt);
          post.run(p.id, p.title, p.slug, p.body, p.bodyFormat, p.bodyHtml, p.excerpt, p.readingTimeMinutes, p.authorId, at, sqliteDatetime(p.updatedAt), at, at);
          postSlug.run(p.slug, p.id);
          for (const tagId of p.tagIds) postTag.run(p.id, tagId);
        },
        comment: (c) =>
          comment.run(c.id, c.postId, c.parentId, c.depth, c.status, c.body, c.bodyHtml, c.authorId, sqliteDatetime(c.createdAt), sqliteDatetime(c.updatedAt)),
      }, rules),
    )();
    db.pragma('wal_checkpoint(TRUNCATE)');
    return counts;
  } finally {
    db.close();
  }
}

const PG_COLUMNS = {
  users: [['id', 'int'], ['name', 'text'], ['email', 'text'], ['password_hash', 'text'], ['avatar_url', 'text'], ['role', 'text'], ['created_at', 'timestamptz'], ['updated_at', 'timestamptz']],
  tags: [['id', 'int'], ['name', 'text'], ['slug', 'text'], ['created_at', 'timestamptz'], ['updated_at', 'timestamptz']],
  posts: [
    ['id', 'int'],
    ['title', 'text'],
    ['slug', 'text'],
    ['body', 'text'],
    ['body_format', 'text'],
    ['body_html', 'text'],
    ['excerpt', 'text'],
    ['reading_time_minutes', 'int'],
    ['author_id', 'int'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
    ['published_at', 'timestamptz'],
    ['group_published_at', 'timestamptz'],
  ],
  post_slugs: [['slug', 'text'], ['post_id', 'int']],
  post_tags: [['post_id', 'int'], ['tag_id', 'int']],
  comments: [
    ['id', 'int'],
    ['post_id', 'int'],
    ['parent_id', 'int'],
    ['depth', 'int'],
    ['status', 'text'],
    ['body', 'text'],
    ['body_html', 'text'],
    ['author_id', 'int'],
    ['created_at', 'timestamptz'],
    ['updated_at', 'timestamptz'],
  ],
};

// Tables without a version column (or an id sequence).
const UNVERSIONED = new Set(['post_tags', 'post_slugs']);

/** Loads the dataset into a migrated, empty PostgreSQL database in one transaction (batched unnest inserts). */
export async function loadPostgres(url, options) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT (SELECT COUNT(*) FROM users) + (SELECT COUNT(*) FROM posts) AS n');
    if (Number(rows[0].n) !== 0) throw new Error('the database is not empty: the bench loads into a fresh database');
    // generateDataset is synchronous: collect the rows, then insert them table by table.
    const rowsOf = { users: [], tags: [], posts: [], post_slugs: [], post_tags: [], comments: [] };
    const rules = await writeRules();
    const counts = generateDataset(options, {
      user: (u) => rowsOf.users.push([u.id, u.name, u.email, u.passwordHash, u.avatarUrl, u.role, u.createdAt.toISOString(), u.updatedAt.toISOString()]),
      tag: (t) => rowsOf.tags.push([t.id, t.name, t.slug, t.createdAt.toISOString(), t.createdAt.toISOString()]),
      post: (p) => {
        const at = p.createdAt.toISOString();
        rowsOf.posts.push([p.id, p.title, p.slug, p.body, p.bodyFormat, p.bodyHtml, p.excerpt, p.readingTimeMinutes, p.authorId, at, p.updatedAt.toISOString(), at, at]);
        rowsOf.post_slugs.push([p.slug, p.id]);
        for (const tagId of p.tagIds) rowsOf.post_tags.push([p.id, tagId]);
      },
      comment: (c) =>
        rowsOf.comments.push([c.id, c.postId, c.parentId, c.depth, c.status, c.body, c.bodyHtml, c.authorId, c.createdAt.toISOString(), c.updatedAt.toISOString()]),
    }, rules);
    await client.query('BEGIN');
    for (const table of ['users', 'tags', 'posts', 'post_slugs', 'post_tags', 'comments']) {
      const columns = PG_COLUMNS[table];
      const select = columns.map(([, type], index) => `$${index + 1}::${type}[]`).join(', ');
      const versioned = UNVERSIONED.has(table) ? ['', '*'] : [', version', '*, 1'];
      const sql = `INSERT INTO ${table} (${columns.map(([name]) => name).join(', ')}${versioned[0]}) SELECT ${versioned[1]} FROM unnest(${select})`;
      for (let from = 0; from < rowsOf[table].length; from += 2000) {
        const batch = rowsOf[table].slice(from, from + 2000);
        await client.query(sql, columns.map((_, index) => batch.map((row) => row[index])));
      }
    }
    for (const table of ['users', 'tags', 'posts', 'comments']) {
      await client.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT MAX(id) FROM ${table}))`);
    }
    await client.query('COMMIT');
    // What autovacuum would long since have done on a live database: statistics, and no dead rows
    // (each post_tags row's trigger updated its tag's post_count, leaving ~70 dead versions per tag
    // that every read of a post's tags walked through).
    await client.query('VACUUM (ANALYZE)');
    return counts;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}

export async function loadDataset(databaseUrl, options) {
  const database = parseDatabaseUrl(databaseUrl);
  return database.type === 'postgres' ? loadPostgres(database.url, options) : loadSqlite(database.url, options);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const value = (name) => {
    const index = args.indexOf(name);
    return index >= 0 ? args[index + 1] : undefined;
  };
  const databaseUrl = value('--database');
  if (!databaseUrl) {
    log('usage: node bench/dataset.mjs --database sqlite:<file>|postgres://… [--users N --posts N --comments-per-post N --markdown-posts N --seed N]');
    process.exit(2);
  }
  const options = {
    users: Number(value('--users') ?? DEFAULT_SIZES.users),
    posts: Number(value('--posts') ?? DEFAULT_SIZES.posts),
    commentsPerPost: Number(value('--comments-per-post') ?? DEFAULT_SIZES.commentsPerPost),
    markdownPosts: Number(value('--markdown-posts') ?? DEFAULT_SIZES.markdownPosts),
    seed: Number(value('--seed') ?? DEFAULT_SIZES.seed),
  };
  loadDataset(databaseUrl, options).then(
    (counts) => process.stderr.write(`loaded ${JSON.stringify(counts)}\n`),
    (error) => {
      log(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
