import { describe, expect, it } from 'vitest';
import { summarizeStatement } from './sql-statement.js';
import { ATTR_DB_COLLECTION_NAME, ATTR_DB_OPERATION_NAME, ATTR_DB_QUERY_TEXT, ATTR_DB_SYSTEM_NAME } from '@opentelemetry/semantic-conventions';
import { DB_ATTRIBUTES, statementSpanName } from './sql-spans.js';

describe('summarizeStatement', () => {
  it.each([
    ['SELECT id, title FROM posts WHERE id = $1', 'SELECT', 'posts'],
    ['  select * from posts', 'SELECT', 'posts'],
    ['INSERT INTO comments (post_id, body) VALUES ($1, $2)', 'INSERT', 'comments'],
    ['INSERT INTO events (type, occurred_at) VALUES ($1, $2), ($3, $4) RETURNING id, tx', 'INSERT', 'events'],
    ['INSERT INTO events (type) SELECT $1 FROM posts_new', 'INSERT', 'events'],
    ["UPDATE posts SET title = $1, status = 'draft' WHERE id = $2", 'UPDATE', 'posts'],
    ['UPDATE OR IGNORE tags SET name = ? WHERE id = ?', 'UPDATE', 'tags'],
    ['DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries LIMIT $1) RETURNING id', 'DELETE', 'webhook_deliveries'],
    ['INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)', 'INSERT', 'settings'],
    ['REPLACE INTO settings (key) VALUES (?)', 'REPLACE', 'settings'],
    // Joins: the first table.
    ['SELECT c.id FROM comments c JOIN posts p ON p.id = c.post_id LEFT JOIN users u ON u.id = c.author_id', 'SELECT', 'comments'],
    ['SELECT p.id FROM posts p, LATERAL (SELECT count(*) FROM comments c WHERE c.post_id = p.id) n', 'SELECT', 'posts'],
    // Quoted identifiers, as TypeORM writes them, and schemas.
    ['SELECT "Post"."id" AS "Post_id" FROM "posts" "Post" WHERE "Post"."id" = ?', 'SELECT', 'posts'],
    ['SELECT * FROM "public"."posts"', 'SELECT', 'public.posts'],
    ['SELECT * FROM public.posts', 'SELECT', 'public.posts'],
    ['SELECT * FROM `my table`', 'SELECT', 'my table'],
    ['SELECT * FROM [posts]', 'SELECT', 'posts'],
    ['SELECT * FROM "we""ird"', 'SELECT', 'we"ird'],
    ['INSERT INTO "comments"("body", "post_id") VALUES (?, ?) RETURNING "id"', 'INSERT', 'comments'],
    // CTEs: the main statement's operation, the first table that is not a CTE's name.
    ['WITH recent AS (SELECT id FROM posts ORDER BY id DESC LIMIT 5) SELECT * FROM recent', 'SELECT', 'posts'],
    ['WITH RECURSIVE thread(id, parent) AS (SELECT id, parent_id FROM comments WHERE id = $1 UNION ALL SELECT c.id, c.parent_id FROM comments c JOIN thread t ON c.parent_id = t.id) SELECT * FROM thread', 'SELECT', 'comments'],
    ['WITH gone AS MATERIALIZED (SELECT id FROM gone_list) DELETE FROM posts WHERE id IN (SELECT id FROM gone)', 'DELETE', 'posts'],
    ['WITH a AS (SELECT 1 AS x), b AS NOT MATERIALIZED (SELECT x FROM a) INSERT INTO tags (id) SELECT x FROM b', 'INSERT', 'tags'],
    ['WITH moved AS (UPDATE posts SET status = $1 RETURNING id) SELECT count(*) FROM moved', 'SELECT', 'posts'],
    // Subqueries, functions and words that only look like tables: the main statement's table first.
    ['SELECT t.id, (SELECT group_concat(g.slug) FROM post_tags pt JOIN tags g ON g.id = pt.tag_id WHERE pt.post_id = t.id) AS tags FROM posts t WHERE t.id = ?', 'SELECT', 'posts'],
    ['SELECT n FROM (SELECT count(*) AS n FROM comments) c', 'SELECT', 'comments'],
    ['SELECT count(*) AS held FROM events WHERE id IN (SELECT event_id FROM webhook_deliveries)', 'SELECT', 'events'],
    ['SELECT t.id FROM (SELECT $1 AS query) q CROSS JOIN posts_fts t', 'SELECT', 'posts_fts'],
    ['SELECT EXTRACT(EPOCH FROM occurred_at) AS at FROM events', 'SELECT', 'events'],
    ['SELECT x FROM unnest($1::int[]) AS u(x) JOIN posts p ON p.id = u.x', 'SELECT', 'posts'],
    ["SELECT 'FROM secrets' AS s, a IS DISTINCT FROM b FROM posts", 'SELECT', 'posts'],
    ['-- FROM nowhere\nSELECT /* FROM elsewhere */ id FROM posts', 'SELECT', 'posts'],
    ['SELECT $body$ FROM x $body$ FROM posts', 'SELECT', 'posts'],
    ['SELECT id FROM posts WHERE id = $1 FOR UPDATE SKIP LOCKED', 'SELECT', 'posts'],
    ['UPDATE webhook_deliveries SET lease_until = $1 WHERE id IN (SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id FOR UPDATE OF d SKIP LOCKED) RETURNING id', 'UPDATE', 'webhook_deliveries'],
    ['INSERT INTO tags (name) VALUES ($1) ON CONFLICT (name) DO UPDATE SET name = excluded.name RETURNING id', 'INSERT', 'tags'],
  ])('%s → %s %s', (text, operation, collection) => {
    expect(summarizeStatement(text)).toEqual({ operation, collection });
  });

  it.each([
    ['SELECT 1', 'SELECT'],
    ['SELECT txid_current()', 'SELECT'],
    ['SELECT * FROM pg_stat_get_activity(NULL)', 'SELECT'],
    ['BEGIN TRANSACTION', 'BEGIN'],
    ['COMMIT', 'COMMIT'],
    ['SAVEPOINT typeorm_1', 'SAVEPOINT'],
    ['PRAGMA foreign_keys = ON', 'PRAGMA'],
    ['LISTEN blog_events', 'LISTEN'],
    ['WITH x AS (SELECT 1) SELECT * FROM x', 'SELECT'],
    ['', ''],
  ])('%s names no table: operation %s alone', (text, operation) => {
    expect(summarizeStatement(text)).toEqual({ operation });
  });
});

describe('statementSpanName', () => {
  it('is `{db.operation.name} {db.collection.name}`, or the operation alone', () => {
    expect(statementSpanName({ operation: 'SELECT', collection: 'posts' })).toBe('SELECT posts');
    expect(statementSpanName({ operation: 'COMMIT' })).toBe('COMMIT');
  });
});

describe('DB_ATTRIBUTES', () => {
  it('are the names of @opentelemetry/semantic-conventions', () => {
    expect(DB_ATTRIBUTES).toEqual({
      systemName: ATTR_DB_SYSTEM_NAME,
      operationName: ATTR_DB_OPERATION_NAME,
      collectionName: ATTR_DB_COLLECTION_NAME,
      queryText: ATTR_DB_QUERY_TEXT,
    });
  });
});
