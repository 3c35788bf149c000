-- Every statement PostRevisionsRepository (src/posts/post-revisions.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
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
  r.post_id = ?
  AND r.number = ?

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
          ranked.post_id IN (?, ?, ?)
      ) page
    WHERE
      page.rn <= ?
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
  r.post_id = ?
ORDER BY
  r.number DESC
LIMIT
  ?

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
  r.post_id IN (?, ?, ?)
ORDER BY
  r.post_id,
  r.number
LIMIT
  ?

-- PostRevisionsRepository.record
INSERT INTO
  post_revisions (post_id, number, title, body, status, editor_id, created_at)
SELECT
  ?,
  COALESCE(MAX(number), 0) + 1,
  ?,
  ?,
  ?,
  ?,
  ?
FROM
  post_revisions
WHERE
  post_id = ?
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
  (?, 1, ?, ?, ?, ?, ?)
