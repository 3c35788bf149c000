-- Every statement OutboxRepository (src/events/outbox.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- OutboxRepository.after
SELECT
  id,
  tx,
  type,
  occurred_at,
  post_id,
  comment_id,
  author_id,
  resource,
  origin,
  audience,
  audience_owner
FROM
  events
WHERE
  id > ?
  AND type IN (?, ?, ?)
  AND post_id = ?
  AND author_id = ?
ORDER BY
  id
LIMIT
  ?

-- OutboxRepository.after
SELECT
  id,
  tx,
  type,
  occurred_at,
  post_id,
  comment_id,
  author_id,
  resource,
  origin,
  audience,
  audience_owner
FROM
  events
WHERE
  id > ?
  AND type IN (?, ?, ?)
ORDER BY
  id
LIMIT
  ?

-- OutboxRepository.after
SELECT
  id,
  tx,
  type,
  occurred_at,
  post_id,
  comment_id,
  author_id,
  resource,
  origin,
  audience,
  audience_owner
FROM
  events
WHERE
  id > ?
ORDER BY
  id
LIMIT
  ?

-- OutboxRepository.append
INSERT INTO
  events (type, occurred_at, post_id, comment_id, author_id, resource, origin, audience, audience_owner)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?, ?)

-- OutboxRepository.at
SELECT
  id,
  tx,
  type,
  occurred_at,
  post_id,
  comment_id,
  author_id,
  resource,
  origin,
  audience,
  audience_owner
FROM
  events
WHERE
  id = ?
  AND tx = ?
ORDER BY
  id
LIMIT
  ?

-- OutboxRepository.latest
SELECT
  id,
  tx,
  type,
  occurred_at,
  post_id,
  comment_id,
  author_id,
  resource,
  origin,
  audience,
  audience_owner
FROM
  events
ORDER BY
  id DESC
LIMIT
  1
