-- Every statement TagsRepository (src/tags/tags.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- TagsRepository.anyFrom
SELECT
  1 AS found
FROM
  tags t
WHERE
  t.post_count > ?
  OR (
    t.post_count = ?
    AND t.id <= ?
  )
LIMIT
  1

-- TagsRepository.delete
DELETE FROM tags
WHERE
  id = ?
RETURNING
  id

-- TagsRepository.ensure
INSERT INTO
  tags (name, slug, created_at, updated_at, version)
VALUES
  (?, ?, ?, ?, 1)
ON CONFLICT (slug) DO NOTHING
RETURNING
  id,
  name,
  slug,
  created_at,
  updated_at,
  version

-- TagsRepository.findById
SELECT
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count
FROM
  tags t
WHERE
  t.id = ?

-- TagsRepository.findBySlug
SELECT
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count
FROM
  tags t
WHERE
  t.slug = ?

-- TagsRepository.idsBySlugs
SELECT
  id,
  slug
FROM
  tags
WHERE
  slug IN (?, ?, ?)

-- TagsRepository.insert
INSERT INTO
  tags (name, slug, created_at, updated_at, version)
VALUES
  (?, ?, ?, ?, ?)
RETURNING
  id,
  name,
  slug,
  created_at,
  updated_at,
  version

-- TagsRepository.mostUsedPage
SELECT
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count
FROM
  tags t
ORDER BY
  t.post_count DESC,
  t.id
LIMIT
  ?

-- TagsRepository.mostUsedPage
SELECT
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count
FROM
  tags t
WHERE
  t.post_count < ?
  OR (
    t.post_count = ?
    AND t.id > ?
  )
ORDER BY
  t.post_count DESC,
  t.id
LIMIT
  ?

-- TagsRepository.publicPostsOf
SELECT
  page.tag_id AS of_tag_id,
  p.id,
  p.title,
  p.body,
  p.author_id,
  p.status,
  p.publish_at,
  p.published_at,
  p.trashed_at,
  p.created_at,
  p.updated_at,
  p.version
FROM
  (
    SELECT
      pt.tag_id,
      pt.post_id,
      ROW_NUMBER() OVER (
        PARTITION BY
          pt.tag_id
        ORDER BY
          r.published_at DESC,
          r.id DESC
      ) AS rn
    FROM
      post_tags pt
      JOIN posts r ON r.id = pt.post_id
    WHERE
      r.status = 'published'
      AND pt.tag_id IN (?, ?, ?)
  ) page
  JOIN posts p ON p.id = page.post_id
WHERE
  page.rn <= ?
ORDER BY
  p.published_at DESC,
  p.id DESC

-- TagsRepository.setPostTags
DELETE FROM post_tags
WHERE
  post_id = ?

-- TagsRepository.setPostTags
INSERT INTO
  post_tags (post_id, tag_id)
VALUES
  (?, ?)

-- TagsRepository.slugsOfPost
SELECT
  g.slug
FROM
  post_tags pt
  JOIN tags g ON g.id = pt.tag_id
WHERE
  pt.post_id = ?
ORDER BY
  g.slug

-- TagsRepository.tagsOfPosts
SELECT
  pt.post_id AS tagged_post_id,
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count
FROM
  post_tags pt
  JOIN tags t ON t.id = pt.tag_id
WHERE
  pt.post_id IN (?, ?, ?)
ORDER BY
  t.slug

-- TagsRepository.updateVersioned
UPDATE tags
SET
  name = ?,
  slug = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
RETURNING
  id,
  name,
  slug,
  created_at,
  updated_at,
  version
