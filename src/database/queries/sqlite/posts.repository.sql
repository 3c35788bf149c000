-- Every statement PostsRepository (src/posts/posts.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- PostsRepository.anyUpTo
SELECT
  1 AS found
FROM
  posts
WHERE
  id >= ?
LIMIT
  1

-- PostsRepository.cascadedComments
SELECT
  id,
  author_id
FROM
  comments
WHERE
  post_id = ?

-- PostsRepository.count
SELECT
  COUNT(*) AS count
FROM
  posts

-- PostsRepository.count
SELECT
  COUNT(*) AS count
FROM
  posts
WHERE
  author_id = ?

-- PostsRepository.delete
DELETE FROM posts
WHERE
  id = ?
RETURNING
  id

-- PostsRepository.exists
SELECT
  1 AS found
FROM
  posts
WHERE
  id = ?

-- PostsRepository.findById
SELECT
  t.id,
  t.title,
  t.body,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  posts t
WHERE
  t.id = ?

-- PostsRepository.findByIds
SELECT
  t.id,
  t.title,
  t.body,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  posts t
WHERE
  t.id IN (?, ?, ?)

-- PostsRepository.findByIds
SELECT
  t.id,
  t.title,
  t.body,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version,
  j.id AS j_id,
  j.name AS j_name,
  j.email AS j_email,
  j.avatar_url AS j_avatar_url,
  j.role AS j_role,
  j.created_at AS j_created_at,
  j.updated_at AS j_updated_at,
  j.version AS j_version
FROM
  posts t
  JOIN users j ON j.id = t.author_id
WHERE
  t.id IN (?, ?, ?)

-- PostsRepository.insert
INSERT INTO
  posts (title, body, author_id, created_at, updated_at, version)
VALUES
  (?, ?, ?, ?, ?, ?)
RETURNING
  id,
  title,
  body,
  author_id,
  created_at,
  updated_at,
  version

-- PostsRepository.insertRecorded
INSERT INTO
  posts (title, body, author_id, created_at, updated_at, version)
VALUES
  (?, ?, ?, ?, ?, ?)
RETURNING
  id,
  title,
  body,
  author_id,
  created_at,
  updated_at,
  version

-- PostsRepository.insertRecorded
INSERT INTO
  events (type, occurred_at, post_id, comment_id, author_id, resource, origin, audience, audience_owner)
SELECT
  ?,
  ?,
  r.id,
  NULL,
  r.author_id,
  json_object(
    'id',
    r.id,
    'title',
    r.title,
    'body',
    r.body,
    'authorId',
    r.author_id,
    'createdAt',
    strftime('%Y-%m-%dT%H:%M:%fZ', r.created_at),
    'updatedAt',
    strftime('%Y-%m-%dT%H:%M:%fZ', r.updated_at)
  ),
  ?,
  ?,
  ?
FROM
  posts r
WHERE
  r.id = last_insert_rowid()

-- PostsRepository.page
SELECT
  t.id,
  t.title,
  t.body,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  posts t
ORDER BY
  t.id DESC
LIMIT
  ?

-- PostsRepository.page
SELECT
  t.id,
  t.title,
  t.body,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  posts t
WHERE
  t.author_id = ?
  AND t.id < ?
ORDER BY
  t.id DESC
LIMIT
  ?

-- PostsRepository.page
SELECT
  t.id,
  t.title,
  t.body,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  posts t
WHERE
  t.author_id = ?
ORDER BY
  t.id DESC
LIMIT
  ?

-- PostsRepository.page
SELECT
  t.id,
  t.title,
  t.body,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  posts t
WHERE
  t.id < ?
ORDER BY
  t.id DESC
LIMIT
  ?

-- PostsRepository.pagesFor
SELECT
  t.id,
  t.title,
  t.body,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  posts t
WHERE
  t.author_id = ?
ORDER BY
  t.id DESC
LIMIT
  ?

-- PostsRepository.pagesFor
SELECT
  t.id,
  t.title,
  t.body,
  t.author_id,
  t.created_at,
  t.updated_at,
  t.version
FROM
  posts t
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
              ranked.author_id
            ORDER BY
              ranked.id DESC
          ) AS rn
        FROM
          posts ranked
        WHERE
          ranked.author_id IN (?, ?, ?)
      ) page
    WHERE
      page.rn <= ?
  )
ORDER BY
  t.id DESC

-- PostsRepository.updateVersioned
UPDATE posts
SET
  title = ?,
  body = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
  AND version = ?
RETURNING
  id,
  title,
  body,
  author_id,
  created_at,
  updated_at,
  version

-- PostsRepository.updateVersioned
UPDATE posts
SET
  title = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
RETURNING
  id,
  title,
  body,
  author_id,
  created_at,
  updated_at,
  version
