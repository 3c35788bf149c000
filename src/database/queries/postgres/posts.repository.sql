-- Every statement PostsRepository (src/posts/posts.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- PostsRepository.anyUpTo
SELECT
  1 AS found
FROM
  posts
WHERE
  id >= $1
LIMIT
  1

-- PostsRepository.cascadedComments
SELECT
  id,
  author_id
FROM
  comments
WHERE
  post_id = $1

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
  author_id = $1

-- PostsRepository.delete
DELETE FROM posts
WHERE
  id = $1
RETURNING
  id

-- PostsRepository.exists
SELECT
  1 AS found
FROM
  posts
WHERE
  id = $1

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
  t.id = $1

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
  t.id IN ($1, $2, $3)

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
  t.id IN ($1, $2, $3)

-- PostsRepository.insert
INSERT INTO
  posts (title, body, author_id, created_at, updated_at, version)
VALUES
  ($1, $2, $3, $4, $5, $6)
RETURNING
  id,
  title,
  body,
  author_id,
  created_at,
  updated_at,
  version

-- PostsRepository.insertRecorded
WITH
  r AS (
    INSERT INTO
      posts (title, body, author_id, created_at, updated_at, version)
    VALUES
      ($1, $2, $3, $4, $5, $6)
    RETURNING
      id,
      title,
      body,
      author_id,
      created_at,
      updated_at,
      version
  ),
  companion AS (
    INSERT INTO
      events (type, occurred_at, post_id, comment_id, author_id, resource, origin, audience, audience_owner)
    SELECT
      $7,
      $8,
      r.id,
      NULL,
      r.author_id,
      json_build_object(
        'id',
        r.id,
        'title',
        r.title,
        'body',
        r.body,
        'authorId',
        r.author_id,
        'createdAt',
        r.created_at,
        'updatedAt',
        r.updated_at
      )::text,
      $9,
      $10,
      $11
    FROM
      r
  )
SELECT
  *
FROM
  r

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
  $1

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
  t.author_id = $1
  AND t.id < $2
ORDER BY
  t.id DESC
LIMIT
  $3

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
  t.author_id = $1
ORDER BY
  t.id DESC
LIMIT
  $2

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
  t.id < $1
ORDER BY
  t.id DESC
LIMIT
  $2

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
  t.author_id = $1
ORDER BY
  t.id DESC
LIMIT
  $2

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
          ranked.author_id IN ($1, $2, $3)
      ) page
    WHERE
      page.rn <= $4
  )
ORDER BY
  t.id DESC

-- PostsRepository.updateVersioned
UPDATE posts
SET
  title = $1,
  body = $2,
  updated_at = $3,
  version = version + 1
WHERE
  id = $4
  AND version = $5
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
  title = $1,
  updated_at = $2,
  version = version + 1
WHERE
  id = $3
RETURNING
  id,
  title,
  body,
  author_id,
  created_at,
  updated_at,
  version
