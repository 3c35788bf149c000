-- Every statement CommentsRepository (src/comments/comments.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- CommentsRepository.countStatus
SELECT
  COUNT(*) AS count
FROM
  comments t
WHERE
  t.status <> 'approved'
  AND t.status = ?

-- CommentsRepository.countVisibleFor
SELECT
  c.post_id AS parent,
  COUNT(*) AS count
FROM
  comments c
WHERE
  c.post_id IN (?, ?, ?)
  AND (
    c.status = 'approved'
    OR (
      c.status = 'pending'
      AND c.author_id = ?
    )
  )
GROUP BY
  c.post_id

-- CommentsRepository.countVisibleFor
SELECT
  c.post_id AS parent,
  COUNT(*) AS count
FROM
  comments c
WHERE
  c.post_id IN (?, ?, ?)
  AND c.status = 'approved'
GROUP BY
  c.post_id

-- CommentsRepository.countVisibleFor
SELECT
  c.post_id AS parent,
  COUNT(*) AS count
FROM
  comments c
WHERE
  c.post_id IN (?, ?, ?)
GROUP BY
  c.post_id

-- CommentsRepository.delete
DELETE FROM comments
WHERE
  id = ?
RETURNING
  id

-- CommentsRepository.findByIds
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version,
  j.id AS j_id,
  j.title AS j_title,
  j.slug AS j_slug,
  j.body AS j_body,
  j.body_format AS j_body_format,
  j.body_html AS j_body_html,
  j.excerpt AS j_excerpt,
  j.reading_time_minutes AS j_reading_time_minutes,
  j.meta_title AS j_meta_title,
  j.meta_description AS j_meta_description,
  j.canonical_url AS j_canonical_url,
  j.cover_image_id AS j_cover_image_id,
  j.locale AS j_locale,
  j.author_id AS j_author_id,
  j.status AS j_status,
  j.publish_at AS j_publish_at,
  j.published_at AS j_published_at,
  j.trashed_at AS j_trashed_at,
  j.created_at AS j_created_at,
  j.updated_at AS j_updated_at,
  j.version AS j_version
FROM
  comments t
  JOIN posts j ON j.id = t.post_id
WHERE
  t.id IN (?, ?, ?)

-- CommentsRepository.findManyForUpdate
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version,
  j.id AS j_id,
  j.title AS j_title,
  j.slug AS j_slug,
  j.body AS j_body,
  j.body_format AS j_body_format,
  j.body_html AS j_body_html,
  j.excerpt AS j_excerpt,
  j.reading_time_minutes AS j_reading_time_minutes,
  j.meta_title AS j_meta_title,
  j.meta_description AS j_meta_description,
  j.canonical_url AS j_canonical_url,
  j.cover_image_id AS j_cover_image_id,
  j.locale AS j_locale,
  j.author_id AS j_author_id,
  j.status AS j_status,
  j.publish_at AS j_publish_at,
  j.published_at AS j_published_at,
  j.trashed_at AS j_trashed_at,
  j.created_at AS j_created_at,
  j.updated_at AS j_updated_at,
  j.version AS j_version
FROM
  comments t
  JOIN posts j ON j.id = t.post_id
WHERE
  t.id IN (?, ?, ?)
ORDER BY
  t.id

-- CommentsRepository.findParent
SELECT
  id,
  post_id,
  author_id,
  status,
  depth
FROM
  comments
WHERE
  id = ?

-- CommentsRepository.insert
INSERT INTO
  comments (post_id, parent_id, status, body, body_html, author_id, created_at, updated_at, version, depth)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING
  id,
  post_id,
  parent_id,
  status,
  body,
  body_html,
  author_id,
  created_at,
  updated_at,
  version

-- CommentsRepository.insertRecorded
INSERT INTO
  comments (post_id, parent_id, status, body, body_html, author_id, created_at, updated_at, version, depth)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING
  id,
  post_id,
  parent_id,
  status,
  body,
  body_html,
  author_id,
  created_at,
  updated_at,
  version

-- CommentsRepository.insertRecorded
INSERT INTO
  comments (post_id, status, body, body_html, author_id, created_at, updated_at, version)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?)
RETURNING
  id,
  post_id,
  parent_id,
  status,
  body,
  body_html,
  author_id,
  created_at,
  updated_at,
  version

-- CommentsRepository.insertRecorded
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
SELECT
  ?,
  ?,
  NULL,
  r.post_id,
  r.author_id,
  r.id,
  NULL,
  json_object(
    'id',
    r.id,
    'postId',
    r.post_id,
    'parentId',
    r.parent_id,
    'status',
    r.status,
    'body',
    r.body,
    'bodyHtml',
    r.body_html,
    'authorId',
    r.author_id,
    'createdAt',
    strftime('%Y-%m-%dT%H:%M:%fZ', r.created_at),
    'updatedAt',
    strftime('%Y-%m-%dT%H:%M:%fZ', r.updated_at)
  ),
  ?,
  ?,
  ?,
  ?,
  ?,
  ?
FROM
  comments r
WHERE
  r.id = ?

-- CommentsRepository.insertRecorded
INSERT INTO
  audit_entries (
    at,
    actor_id,
    actor_credential,
    actor_key_id,
    action,
    resource_type,
    resource_id,
    changes,
    ip,
    user_agent,
    request_id,
    trace_id
  )
SELECT
  ?,
  ?,
  ?,
  ?,
  ?,
  ?,
  r.id,
  ?,
  ?,
  ?,
  ?,
  ?
FROM
  comments r
WHERE
  r.id = ?

-- CommentsRepository.page
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  comments t
WHERE
  t.author_id = ?
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.setStatus
UPDATE comments
SET
  status = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id IN (?, ?, ?)
RETURNING
  id,
  post_id,
  parent_id,
  status,
  body,
  body_html,
  author_id,
  created_at,
  updated_at,
  version

-- CommentsRepository.statusPage
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  comments t
WHERE
  t.status <> 'approved'
  AND t.status = ?
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.thread
WITH RECURSIVE
  thread (id) AS (
    SELECT
      id
    FROM
      comments
    WHERE
      id = ?
    UNION ALL
    SELECT
      c.id
    FROM
      comments c
      JOIN thread ON c.parent_id = thread.id
  )
SELECT
  t.id,
  t.post_id,
  t.author_id,
  t.status
FROM
  comments t
WHERE
  t.id IN (
    SELECT
      id
    FROM
      thread
  )
ORDER BY
  t.id

-- CommentsRepository.updateVersioned
UPDATE comments
SET
  body = ?,
  body_html = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
  AND version = ?
RETURNING
  id,
  post_id,
  parent_id,
  status,
  body,
  body_html,
  author_id,
  created_at,
  updated_at,
  version

-- CommentsRepository.updateVersioned
UPDATE comments
SET
  body = ?,
  body_html = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
RETURNING
  id,
  post_id,
  parent_id,
  status,
  body,
  body_html,
  author_id,
  created_at,
  updated_at,
  version

-- CommentsRepository.updateVersioned
UPDATE comments
SET
  status = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
RETURNING
  id,
  post_id,
  parent_id,
  status,
  body,
  body_html,
  author_id,
  created_at,
  updated_at,
  version

-- CommentsRepository.visiblePage
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  comments t
WHERE
  t.parent_id = ?
  AND (
    t.status = 'approved'
    OR (
      t.status = 'pending'
      AND t.author_id = ?
    )
  )
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePage
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  comments t
WHERE
  t.parent_id = ?
  AND t.status = 'approved'
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePage
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  comments t
WHERE
  t.parent_id = ?
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePage
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  comments t
WHERE
  t.post_id = ?
  AND (
    t.status = 'approved'
    OR (
      t.status = 'pending'
      AND t.author_id = ?
    )
  )
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePage
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  comments t
WHERE
  t.post_id = ?
  AND t.status = 'approved'
  AND t.id > ?
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePage
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  comments t
WHERE
  t.post_id = ?
  AND t.status = 'approved'
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePage
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.status,
  t.body,
  t.body_html,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  comments t
WHERE
  t.post_id = ?
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.author_id
FROM
  comments t
WHERE
  t.id IN (
    SELECT
      page.id
    FROM
      (
        SELECT
          ranked.id AS id,
          ROW_NUMBER() OVER (
            PARTITION BY
              ranked.post_id
            ORDER BY
              ranked.id ASC
          ) AS rn
        FROM
          comments ranked
        WHERE
          ranked.post_id IN (?, ?, ?)
          AND (
            ranked.status = 'approved'
            OR (
              ranked.status = 'pending'
              AND ranked.author_id = ?
            )
          )
      ) page
    WHERE
      page.rn <= ?
  )
ORDER BY
  t.id ASC

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.author_id
FROM
  comments t
WHERE
  t.id IN (
    SELECT
      page.id
    FROM
      (
        SELECT
          ranked.id AS id,
          ROW_NUMBER() OVER (
            PARTITION BY
              ranked.post_id
            ORDER BY
              ranked.id ASC
          ) AS rn
        FROM
          comments ranked
        WHERE
          ranked.post_id IN (?, ?, ?)
          AND ranked.status = 'approved'
      ) page
    WHERE
      page.rn <= ?
  )
ORDER BY
  t.id ASC

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.author_id
FROM
  comments t
WHERE
  t.id IN (
    SELECT
      page.id
    FROM
      (
        SELECT
          ranked.id AS id,
          ROW_NUMBER() OVER (
            PARTITION BY
              ranked.post_id
            ORDER BY
              ranked.id ASC
          ) AS rn
        FROM
          comments ranked
        WHERE
          ranked.post_id IN (?, ?, ?)
      ) page
    WHERE
      page.rn <= ?
  )
ORDER BY
  t.id ASC

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.author_id
FROM
  comments t
WHERE
  t.post_id = ?
  AND (
    t.status = 'approved'
    OR (
      t.status = 'pending'
      AND t.author_id = ?
    )
  )
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.author_id
FROM
  comments t
WHERE
  t.post_id = ?
  AND t.status = 'approved'
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.author_id
FROM
  comments t
WHERE
  t.post_id = ?
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.author_id,
  j.id AS j_id,
  j.name AS j_name
FROM
  comments t
  JOIN users j ON j.id = t.author_id
WHERE
  t.id IN (
    SELECT
      page.id
    FROM
      (
        SELECT
          ranked.id AS id,
          ROW_NUMBER() OVER (
            PARTITION BY
              ranked.parent_id
            ORDER BY
              ranked.id ASC
          ) AS rn
        FROM
          comments ranked
        WHERE
          ranked.parent_id IN (?, ?, ?)
          AND (
            ranked.status = 'approved'
            OR (
              ranked.status = 'pending'
              AND ranked.author_id = ?
            )
          )
      ) page
    WHERE
      page.rn <= ?
  )
ORDER BY
  t.id ASC

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.author_id,
  j.id AS j_id,
  j.name AS j_name
FROM
  comments t
  JOIN users j ON j.id = t.author_id
WHERE
  t.id IN (
    SELECT
      page.id
    FROM
      (
        SELECT
          ranked.id AS id,
          ROW_NUMBER() OVER (
            PARTITION BY
              ranked.parent_id
            ORDER BY
              ranked.id ASC
          ) AS rn
        FROM
          comments ranked
        WHERE
          ranked.parent_id IN (?, ?, ?)
          AND ranked.status = 'approved'
      ) page
    WHERE
      page.rn <= ?
  )
ORDER BY
  t.id ASC

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.author_id,
  j.id AS j_id,
  j.name AS j_name
FROM
  comments t
  JOIN users j ON j.id = t.author_id
WHERE
  t.id IN (
    SELECT
      page.id
    FROM
      (
        SELECT
          ranked.id AS id,
          ROW_NUMBER() OVER (
            PARTITION BY
              ranked.parent_id
            ORDER BY
              ranked.id ASC
          ) AS rn
        FROM
          comments ranked
        WHERE
          ranked.parent_id IN (?, ?, ?)
      ) page
    WHERE
      page.rn <= ?
  )
ORDER BY
  t.id ASC

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.body,
  t.author_id,
  j.id AS j_id,
  j.name AS j_name
FROM
  comments t
  JOIN users j ON j.id = t.author_id
WHERE
  t.id IN (
    SELECT
      page.id
    FROM
      (
        SELECT
          ranked.id AS id,
          ROW_NUMBER() OVER (
            PARTITION BY
              ranked.post_id
            ORDER BY
              ranked.id ASC
          ) AS rn
        FROM
          comments ranked
        WHERE
          ranked.post_id IN (?, ?, ?)
          AND ranked.status = 'approved'
      ) page
    WHERE
      page.rn <= ?
  )
ORDER BY
  t.id ASC

-- CommentsRepository.visiblePagesFor
SELECT
  t.id,
  t.post_id,
  t.parent_id,
  t.body,
  t.author_id,
  j.id AS j_id,
  j.name AS j_name
FROM
  comments t
  JOIN users j ON j.id = t.author_id
WHERE
  t.post_id = ?
  AND t.status = 'approved'
ORDER BY
  t.id ASC
LIMIT
  ?

-- CommentsRepository.writerStanding
SELECT
  u.comments_blocked AS blocked
FROM
  users u
WHERE
  u.id = ?
