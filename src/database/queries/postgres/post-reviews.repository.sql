-- Every statement PostReviewsRepository (src/posts/post-reviews.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- PostReviewsRepository.find
SELECT
  r.id,
  r.post_id,
  r.reviewer_id,
  r.decision,
  r.note,
  r.created_at
FROM
  post_reviews r
WHERE
  r.post_id = $1
  AND r.id = $2

-- PostReviewsRepository.insert
INSERT INTO
  post_reviews (post_id, reviewer_id, decision, note, created_at)
VALUES
  ($1, $2, $3, $4, $5)
RETURNING
  id,
  post_id,
  reviewer_id,
  decision,
  note,
  created_at

-- PostReviewsRepository.page
SELECT
  r.id,
  r.post_id,
  r.reviewer_id,
  r.decision,
  r.note,
  r.created_at
FROM
  post_reviews r
WHERE
  r.post_id = $1
ORDER BY
  r.id DESC
LIMIT
  $2
