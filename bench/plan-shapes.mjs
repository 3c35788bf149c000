/**
 * Issue 43, item 2: the two shapes of the planned post page's statement, measured on a bench
 * dataset kept by `node bench/run.mjs --keep` (the run prints where): positional tuples hydrated
 * and serialized in Node (what the planner sends) against database-built JSON passed through as
 * text, and on SQLite the statement against the same reads as two plain statements.
 *
 *   node bench/plan-shapes.mjs --sqlite /tmp/blog-bench-XXXX/bench.sqlite
 *   node bench/plan-shapes.mjs --database postgres://postgres@127.0.0.1:5432/blog_bench_…
 *
 * Prints µs per page (wall, and this process's CPU), sequential, post ids 1–2000 in turn.
 */
import process from 'node:process';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';
import { out as print } from './shared.mjs';

const { values } = parseArgs({ options: { sqlite: { type: 'string' }, database: { type: 'string' }, n: { type: 'string', default: '3000' }, rounds: { type: 'string', default: '3' } } });
const N = Number(values.n);
const require = createRequire(import.meta.url);

const COMMENTS = (p) =>
  `SELECT c.id AS v0, c.body AS v1, u.id AS v2, u.name AS v3 FROM comments c JOIN users u ON u.id = c.author_id WHERE c.post_id = ${p(1)} AND c.status = 'approved' ORDER BY c.id ASC LIMIT ${p(2)}`;
const POST = 'SELECT p.id, p.title, p.body, a.id AS a_id, a.name AS a_name, a.avatar_url AS a_avatar_url';
const FROM = (p) => `FROM posts p JOIN users a ON a.id = p.author_id WHERE p.id = ${p(1)} AND p.status = 'published'`;

/** The bench's post page, as the planner completes and serializes it. */
function page(post, comments) {
  return `${JSON.stringify({ data: { post: post && { title: post.title, body: post.body, author: { name: post.a_name, avatarUrl: post.a_avatar_url }, comments } } })}\n`;
}
const fromTuples = (text) => (text ? JSON.parse(text) : []).map((t) => ({ body: t[1], author: { name: t[3] } }));

async function measure(name, once) {
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  for (let index = 0; index < N; index++) await once(1 + (index % 2000));
  const wall = Number(process.hrtime.bigint() - started) / N / 1000;
  const used = process.cpuUsage(cpu);
  print(`${name.padEnd(58)} ${wall.toFixed(1).padStart(7)} µs wall ${((used.user + used.system) / N).toFixed(1).padStart(7)} µs CPU`);
}

if (values.sqlite) {
  const Database = require(Number(process.versions.node.split('.')[0]) >= 22 ? 'better-sqlite3-napi' : 'better-sqlite3');
  const db = new Database(values.sqlite, { readonly: true });
  const q = () => '?';
  const tuples = db.prepare(`${POST}, (SELECT json_group_array(json_array(x.v0, x.v1, x.v2, x.v3)) FROM (${COMMENTS(q)}) x) AS planned_comments ${FROM(q)}`);
  const whole = db.prepare(
    `SELECT json_object('title', p.title, 'body', p.body, 'author', json_object('name', a.name, 'avatarUrl', a.avatar_url), 'comments', (SELECT json_group_array(json_object('body', x.v1, 'author', json_object('name', x.v3))) FROM (${COMMENTS(q)}) x)) AS page ${FROM(q)}`,
  ).pluck();
  const post = db.prepare(`${POST} ${FROM(q)}`);
  const comments = db.prepare(COMMENTS(q)).raw();
  for (let round = 0; round < Number(values.rounds); round++) {
    await measure('one statement, positional tuples (the plan)', async (id) => {
      const row = tuples.get(id, 10, id);
      return page(row, fromTuples(row?.planned_comments));
    });
    await measure('one statement, database-built JSON passed through', async (id) => {
      const text = whole.get(id, 10, id);
      return `{"data":{"post":${text ?? 'null'}}}\n`;
    });
    await measure('two statements, rows', async (id) => {
      const row = post.get(id);
      return page(row, row ? comments.all(id, 10).map((t) => ({ body: t[1], author: { name: t[3] } })) : []);
    });
  }
  const check = whole.get(7, 10, 7);
  const planned = page(tuples.get(7, 10, 7), fromTuples(tuples.get(7, 10, 7).planned_comments));
  print(`database-built JSON is the plan's bytes: ${`{"data":{"post":${check}}}\n` === planned}`);
} else if (values.database) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: values.database });
  await client.connect();
  const q = (n) => `$${n}`;
  const tuples = { name: 'plan-shapes-tuples', text: `${POST}, (SELECT json_agg(json_build_array(x.v0, x.v1, x.v2, x.v3))::text FROM (${COMMENTS(q)}) x) AS planned_comments ${FROM(q)}` };
  const object = (fn, agg) =>
    `SELECT ${fn}('title', p.title, 'body', p.body, 'author', ${fn}('name', a.name, 'avatarUrl', a.avatar_url), 'comments', coalesce((SELECT ${agg}(${fn}('body', x.v1, 'author', ${fn}('name', x.v3)) ORDER BY x.v0) FROM (${COMMENTS(q)}) x), '[]'))::text AS page ${FROM(q)}`;
  const json = { name: 'plan-shapes-json', text: object('json_build_object', 'json_agg') };
  const jsonb = { name: 'plan-shapes-jsonb', text: object('jsonb_build_object', 'jsonb_agg') };
  const send = async (statement, id) => (await client.query({ ...statement, values: [id, 10] })).rows[0];
  for (let round = 0; round < Number(values.rounds); round++) {
    await measure('positional tuples, hydrated (the plan)', async (id) => {
      const row = await send(tuples, id);
      return page(row, fromTuples(row?.planned_comments));
    });
    await measure('json_build_object as text, passed through', async (id) => `{"data":{"post":${(await send(json, id))?.page ?? 'null'}}}\n`);
    await measure('jsonb_build_object as text, passed through', async (id) => `{"data":{"post":${(await send(jsonb, id))?.page ?? 'null'}}}\n`);
  }
  const row = await send(tuples, 7);
  const planned = page(row, fromTuples(row.planned_comments));
  for (const [name, statement] of [['json', json], ['jsonb', jsonb]]) {
    print(`${name} text is the plan's bytes: ${`{"data":{"post":${(await send(statement, 7)).page}}}\n` === planned}`);
  }
  await client.end();
} else {
  process.stderr.write('usage: node bench/plan-shapes.mjs --sqlite FILE | --database postgres://…\n');
  process.exit(2);
}
