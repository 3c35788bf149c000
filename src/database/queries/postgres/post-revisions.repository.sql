-- Every statement PostRevisionsRepository (src/posts/post-revisions.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- PostRevisionsRepository.find
SELECT
  r.id,
  r.post_id,
  r.number,
  r.title,
  r.body,
  r.status,
  r.editor_id,
  r.created_at
FROM
  post_revisions r
WHERE
  r.post_id = $1
  AND r.number = $2

-- PostRevisionsRepository.newestFor
SELECT
  r.id,
  r.post_id,
  r.number,
  r.title,
  r.body,
  r.status,
  r.editor_id,
  r.created_at
FROM
  post_revisions r
WHERE
  r.id IN (
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
              ranked.number DESC
          ) AS rn
        FROM
          post_revisions ranked
        WHERE
          ranked.post_id IN ($1, $2, $3)
      ) page
    WHERE
      page.rn <= $4
  )
ORDER BY
  r.number DESC

-- PostRevisionsRepository.page
SELECT
  r.id,
  r.post_id,
  r.number,
  r.title,
  r.body,
  r.status,
  r.editor_id,
  r.created_at
FROM
  post_revisions r
WHERE
  r.post_id = $1
ORDER BY
  r.number DESC
LIMIT
  $2

-- PostRevisionsRepository.pageOfPosts
SELECT
  r.id,
  r.post_id,
  r.number,
  r.title,
  r.body,
  r.status,
  r.editor_id,
  r.created_at
FROM
  post_revisions r
WHERE
  r.post_id IN ($1, $2, $3)
ORDER BY
  r.post_id,
  r.number
LIMIT
  $4

-- PostRevisionsRepository.record
INSERT INTO
  post_revisions (post_id, number, title, body, status, editor_id, created_at)
SELECT
  $1,
  COALESCE(MAX(number), 0) + 1,
  $2,
  $3,
  $4,
  $5,
  $6
FROM
  post_revisions
WHERE
  post_id = $7
RETURNING
  id,
  post_id,
  number,
  title,
  body,
  status,
  editor_id,
  created_at

-- PostRevisionsRepository.recordFirst
INSERT INTO
  post_revisions (post_id, number, title, body, status, editor_id, created_at)
VALUES
  ($1, 1, $2, $3, $4, $5, $6)
