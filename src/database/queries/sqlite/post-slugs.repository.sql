-- Every statement PostSlugsRepository (src/posts/post-slugs.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- PostSlugsRepository.claim
INSERT INTO
  post_slugs (slug, post_id)
VALUES
  (?, ?)
ON CONFLICT (slug) DO NOTHING
RETURNING
  slug

-- PostSlugsRepository.postIdOf
SELECT
  post_id
FROM
  post_slugs
WHERE
  slug = ?

-- PostSlugsRepository.setCurrent
UPDATE posts
SET
  slug = ?
WHERE
  id = ?

-- PostSlugsRepository.takenStartingWith
SELECT
  slug
FROM
  post_slugs
WHERE
  slug LIKE ?
