-- The statements sent on SQLite outside the repositories (transaction control aside), as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts

-- PostSlugs.record (src/posts/post-slugs.service.ts)
INSERT INTO
  post_slugs (slug, post_id)
VALUES
  (?, ?)

-- PostSlugs.freeSlugFor (src/posts/post-slugs.service.ts)
SELECT
  slug
FROM
  post_slugs
WHERE
  slug = ?
  OR slug LIKE ?
