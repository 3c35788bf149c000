/**
 * The dataset for finding content at scale (test/finding-scale.e2e-spec.ts, bench/finding.mjs),
 * made by the database itself (generate_series; a recursive CTE on SQLite), fast enough for a
 * million posts in a test: users, tags, posts in every state and two tags per post.
 *
 * Words are made up from syllables by number (`word(4242)` = `kapumipumi`): titles and bodies
 * draw them from `words` of them (findingSizes), so a search word is on about 200 posts, as a
 * real term is on a bounded number of a blog's posts, rather than on a fifth of them. Post g: published one
 * minute after post g − 1 from 2024-01-01 (one in 97 a draft, one scheduled, one trashed: 97 is
 * prime to the tags' 200, so every tag has public posts),
 * trashed ones just now (else the trash's retention would empty it at start-up), updated in a scrambled order, tagged `tag-(1 + g % TAGS)` and `tag-(1 + 7g % TAGS)`; one post in 100,003 is also tagged `rare`.
 */

export const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'pu', 'ra', 'si', 'to', 'vu', 'ze'];
export const FINDING_DEFAULTS = { users: 100, posts: 1_000_000, tags: 200 };

/**
 * The sizes of a dataset: `words` grows with the posts (posts / 50, at least 200), so that a word
 * is on about 200 posts whatever the size (each post holds four) and a search's first page is as
 * full on a small blog as on a big one.
 */
export function findingSizes(options = {}) {
  const sizes = { ...FINDING_DEFAULTS, ...options };
  return { ...sizes, words: options.words ?? Math.max(200, Math.round(sizes.posts / 50)) };
}

/** The made-up word number n (0 ≤ n < 100,000): its five decimal digits as syllables. */
export const word = (n) => [...String(n).padStart(5, '0')].map((digit) => SYLLABLES[Number(digit)]).join('');

/** `word` in SQL, of an integer expression. */
function wordSql(kind, expression) {
  let text = kind === 'postgres' ? `lpad((${expression})::text, 5, '0')` : `printf('%05d', ${expression})`;
  SYLLABLES.forEach((syllable, digit) => (text = `replace(${text}, '${digit}', '${syllable}')`));
  return text;
}

function postsSelect(kind, { users, posts, words }, series) {
  const minutes = (expression) => (kind === 'postgres' ? `timestamptz '2024-01-01' + (${expression}) * interval '1 minute'` : `strftime('%Y-%m-%d %H:%M:%f', '2024-01-01', '+' || (${expression}) || ' minutes')`);
  const at = (date) => (kind === 'postgres' ? `timestamptz '${date}'` : `'${date} 00:00:00.000'`);
  return `SELECT ${wordSql(kind, `g % ${words}`)} || ' ' || ${wordSql(kind, `(g * 13) % ${words}`)},
      'Notes on ' || ${wordSql(kind, `(g * 7919) % ${words}`)} || ' and ' || ${wordSql(kind, `(g * 104729) % ${words}`)} || ', written for post ' || g || '.',
      1 + g % ${users},
      CASE g % 97 WHEN 0 THEN 'draft' WHEN 1 THEN 'scheduled' WHEN 2 THEN 'trashed' ELSE 'published' END,
      CASE WHEN g % 97 = 1 THEN ${at('2030-01-01')} END,
      CASE WHEN g % 97 NOT IN (0, 1) THEN ${minutes('g')} END,
      CASE WHEN g % 97 NOT IN (0, 1) THEN ${minutes('g')} END,
      CASE WHEN g % 97 = 2 THEN ${now(kind)} END,
      ${minutes('g')}, ${minutes(`(g * 31) % ${posts}`)}, 1
    FROM ${series}`;
}

/** Trashed just now: the trash's retention would delete a post trashed long ago at the service's start. */
const now = (kind) => (kind === 'postgres' ? 'now()' : "strftime('%Y-%m-%d %H:%M:%f', 'now')");

/** Two tags per post, and the tag `rare` (id TAGS + 1) on one post in 100,003. */
const TAGGING = (tags) =>
  `SELECT id, 1 + id % ${tags} FROM posts UNION SELECT id, 1 + (id * 7) % ${tags} FROM posts UNION SELECT id, ${tags + 1} FROM posts WHERE id % 100003 = 7`;

/** Each tag's `post_count` and `link_count` (kept by triggers as posts are tagged; see the tags migrations), all at once. */
const COUNT_TAGS =
  "UPDATE tags SET post_count = (SELECT COUNT(*) FROM post_tags pt JOIN posts p ON p.id = pt.post_id WHERE pt.tag_id = tags.id AND p.status = 'published'), " +
  'link_count = (SELECT COUNT(*) FROM post_tags pt WHERE pt.tag_id = tags.id)';

const POST_INSERT = 'INSERT INTO posts (title, body, author_id, status, publish_at, published_at, group_published_at, trashed_at, created_at, updated_at, version)';

/** Loads into a migrated, empty PostgreSQL database through `client` (node-postgres). */
export async function loadFindingPostgres(client, options = {}) {
  const sizes = findingSizes(options);
  await client.query(`INSERT INTO users (name, email, password_hash, role, created_at, updated_at, version)
    SELECT 'User ' || g, 'user' || g || '@finding.example', 'x', 'author', now(), now(), 1 FROM generate_series(1, ${sizes.users}) g`);
  await client.query(`INSERT INTO tags (name, slug, created_at, updated_at, version)
    SELECT 'Tag ' || g, 'tag-' || g, now(), now(), 1 FROM generate_series(1, ${sizes.tags}) g`);
  await client.query(`${POST_INSERT} ${postsSelect('postgres', sizes, `generate_series(1::bigint, ${sizes.posts}) g`)}`);
  await client.query(`INSERT INTO tags (name, slug, created_at, updated_at, version) VALUES ('Rare', 'rare', now(), now(), 1)`);
  // The links in one statement: its statement-level trigger counts them per tag in one pass.
  await client.query(`INSERT INTO post_tags (post_id, tag_id) ${TAGGING(sizes.tags)}`);
  await client.query('VACUUM (ANALYZE)');
  return sizes;
}

/** Loads into a migrated, empty SQLite database through `db` (better-sqlite3), in one transaction. */
export function loadFindingSqlite(db, options = {}) {
  const sizes = findingSizes(options);
  const series = (count) => `(WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${count}) SELECT g FROM s)`;
  const at = now('sqlite');
  db.transaction(() => {
    db.exec(`INSERT INTO users (name, email, password_hash, role, created_at, updated_at, version)
      SELECT 'User ' || g, 'user' || g || '@finding.example', 'x', 'author', ${at}, ${at}, 1 FROM ${series(sizes.users)}`);
    db.exec(`INSERT INTO tags (name, slug, created_at, updated_at, version) SELECT 'Tag ' || g, 'tag-' || g, ${at}, ${at}, 1 FROM ${series(sizes.tags)}`);
    db.exec(`${POST_INSERT} ${postsSelect('sqlite', sizes, series(sizes.posts))}`);
    db.exec(`INSERT INTO tags (name, slug, created_at, updated_at, version) VALUES ('Rare', 'rare', ${at}, ${at}, 1)`);
    // The links without their counting trigger (one update of a tag per link), then the counts at once.
    const [trigger] = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'post_tags_count_insert'").all();
    db.exec('DROP TRIGGER post_tags_count_insert');
    db.exec(`INSERT INTO post_tags (post_id, tag_id) ${TAGGING(sizes.tags)}`);
    db.exec(trigger.sql);
    db.exec(COUNT_TAGS);
  })();
  db.exec('ANALYZE');
  return sizes;
}
