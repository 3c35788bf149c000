/**
 * One-off figures for issue 36: how long one statement takes to link N posts to one tag, to
 * unpublish and publish them, and to delete them (their links cascade), with the tag counts the
 * build at <repo dir> keeps. PostgreSQL: a fresh database beside postgres://postgres@127.0.0.1:5432/test
 * (dropped after; KEEP=1 keeps it). After `npm run build`:
 *
 *   node bench/tag-counting.mjs . postgres 5000 10000 20000 50000
 *   node bench/tag-counting.mjs . sqlite 5000 10000 20000 50000
 */
import 'reflect-metadata';
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
const [where, kind, ...ns] = process.argv.slice(2);
const dir = pathToFileURL(resolve(where)).href;
const { createApp } = await import(`${dir}/dist/src/app.factory.js`);
const { loadConfig } = await import(`${dir}/dist/src/config/app-config.js`);
const { DataSource } = await import('typeorm');
let url = 'sqlite::memory:';
const name = `blog_fig_${process.pid}`;
if (kind === 'postgres') {
  const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' }); await c.connect(); await c.query(`CREATE DATABASE ${name}`); await c.end();
  url = `postgres://postgres@127.0.0.1:5432/${name}`;
}
const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', JWT_SECRET: 'x'.repeat(48), DATABASE_URL: url, SEED_DEMO_DATA: 'false' });
const app = await createApp(config); await app.init();
let ds = app.get(DataSource);
if (kind === 'postgres') { const c = new pg.Client({ connectionString: url }); await c.connect(); ds = { query: async (q) => (await c.query(q)).rows, end: () => c.end() }; }
const now = '2026-01-01 00:00:00.000';
try {
  await ds.query(`INSERT INTO users (email, name, password_hash, role, created_at, updated_at, version) VALUES ('fig@example.com', 'fig', 'x', 'author', '${now}', '${now}', 1)`);
  const [{ id: author }] = await ds.query(`SELECT id FROM users WHERE email = 'fig@example.com'`);
  for (const n of ns.map(Number)) {
    await ds.query(`INSERT INTO tags (name, slug, created_at, updated_at, version) VALUES ('t${n}', 't${n}', '${now}', '${now}', 1)`);
    const [{ id: tag }] = await ds.query(`SELECT id FROM tags WHERE slug = 't${n}'`);
    await ds.query(`DELETE FROM posts`);
    const series = kind === 'postgres' ? `generate_series(1, ${n}) AS s(g)` : `(WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < ${n}) SELECT g FROM s) s`;
    await ds.query(`INSERT INTO posts (title, body, author_id, created_at, updated_at, version, status, published_at, group_published_at) SELECT 'bulk', 'b', ${author}, '${now}', '${now}', 1, 'published', '${now}', '${now}' FROM ${series}`);
    let t = performance.now();
    await ds.query(`INSERT INTO post_tags (post_id, tag_id) SELECT id, ${tag} FROM posts`);
    const insert = performance.now() - t;
    t = performance.now();
    await ds.query(`UPDATE posts SET status = 'draft'`);
    const unpublish = performance.now() - t;
    t = performance.now();
    await ds.query(`UPDATE posts SET status = 'published'`);
    const publish = performance.now() - t;
    t = performance.now();
    await ds.query(`DELETE FROM posts`);
    const del = performance.now() - t;
    const [{ post_count }] = await ds.query(`SELECT post_count FROM tags WHERE id = ${tag}`);
    process.stdout.write(JSON.stringify({ kind, n, insertMs: Math.round(insert), unpublishMs: Math.round(unpublish), publishMs: Math.round(publish), deletePostsMs: Math.round(del), post_count }) + '\n');
  }
} finally {
  await ds.end?.();
  await app.close();
  if (kind === 'postgres' && !process.env.KEEP) { const c = new pg.Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/test' }); await c.connect(); await c.query(`DROP DATABASE ${name} WITH (FORCE)`); await c.end(); }
if (process.env.KEEP) process.stdout.write(`kept ${name}\n`);
}
