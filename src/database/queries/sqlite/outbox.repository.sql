-- Every statement OutboxRepository (src/events/outbox.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- OutboxRepository.after
SELECT
  id,
  tx,
  type,
  occurred_at,
  tag_id,
  post_id,
  author_id,
  comment_id,
  media_id,
  resource,
  origin,
  audience,
  audience_owner,
  audience_except,
  audience_except_owner,
  trace_parent
FROM
  events
WHERE
  id > ?
  AND (audience IN ('public'))
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
  tag_id,
  post_id,
  author_id,
  comment_id,
  media_id,
  resource,
  origin,
  audience,
  audience_owner,
  audience_except,
  audience_except_owner,
  trace_parent
FROM
  events
WHERE
  id > ?
  AND type IN (?, ?, ?)
  AND (audience IN ('public'))
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
  tag_id,
  post_id,
  author_id,
  comment_id,
  media_id,
  resource,
  origin,
  audience,
  audience_owner,
  audience_except,
  audience_except_owner,
  trace_parent
FROM
  events
WHERE
  id > ?
  AND type IN (?, ?, ?)
  AND post_id = ?
  AND author_id = ?
  AND (audience IN ('public'))
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
  tag_id,
  post_id,
  author_id,
  comment_id,
  media_id,
  resource,
  origin,
  audience,
  audience_owner,
  audience_except,
  audience_except_owner,
  trace_parent
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
  events (
    type,
    occurred_at,
    tag_id,
    post_id,
    author_id,
    comment_id,
    media_id,
    resource,
    origin,
    audience,
    audience_owner,
    audience_except,
    audience_except_owner,
    trace_parent
  )
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING
  id,
  tx

-- OutboxRepository.at
SELECT
  id,
  tx,
  type,
  occurred_at,
  tag_id,
  post_id,
  author_id,
  comment_id,
  media_id,
  resource,
  origin,
  audience,
  audience_owner,
  audience_except,
  audience_except_owner,
  trace_parent
FROM
  events
WHERE
  id = ?
  AND tx = ?
  AND (audience IN ('public'))
ORDER BY
  id
LIMIT
  ?

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (
    author_id IN (?, ?, ?)
    OR post_id IN (?, ?, ?)
  )

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (author_id IN (?, ?, ?))

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (comment_id IN (?, ?, ?))

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (comment_id IN (?, ?, ?))
  AND audience IN ('public')

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (post_id IN (?, ?, ?))

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (post_id IN (?, ?, ?))
  AND audience IN ('moderated', 'public')

-- OutboxRepository.latest
SELECT
  id,
  tx,
  type,
  occurred_at,
  tag_id,
  post_id,
  author_id,
  comment_id,
  media_id,
  resource,
  origin,
  audience,
  audience_owner,
  audience_except,
  audience_except_owner,
  trace_parent
FROM
  events
ORDER BY
  id DESC
LIMIT
  1
