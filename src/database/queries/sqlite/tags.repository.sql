-- Every statement TagsRepository (src/tags/tags.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- TagsRepository.announceTagsOf
UPDATE tags
SET
  announced = TRUE
WHERE
  announced = FALSE
  AND id IN (
    SELECT
      tag_id
    FROM
      post_tags
    WHERE
      post_id = ?
  )
RETURNING
  id,
  name,
  slug,
  created_at,
  updated_at,
  version,
  post_count

-- TagsRepository.anyFrom
SELECT
  1 AS found
FROM
  tags t
WHERE
  (
    t.post_count > ?
    OR (
      t.post_count = ?
      AND t.id <= ?
    )
  )
  AND (
    t.post_count > 0
    OR (
      t.announced
      AND t.link_count = 0
    )
  )
LIMIT
  1

-- TagsRepository.carriedByPublic
SELECT
  g.id,
  g.slug,
  MAX(p.updated_at) AS last_modified
FROM
  tags g
  JOIN post_tags pt ON pt.tag_id = g.id
  JOIN posts p ON p.id = pt.post_id
WHERE
  p.status = 'published'
GROUP BY
  g.id,
  g.slug
ORDER BY
  g.id
LIMIT
  ?
OFFSET
  ?

-- TagsRepository.carriesPostOf
SELECT
  1 AS found
FROM
  post_tags pt
  JOIN posts p ON p.id = pt.post_id
WHERE
  pt.tag_id = ?
  AND p.author_id = ?
LIMIT
  1

-- TagsRepository.countCarriedByPublic
SELECT
  COUNT(DISTINCT pt.tag_id) AS count
FROM
  post_tags pt
  JOIN posts p ON p.id = pt.post_id
WHERE
  p.status = 'published'

-- TagsRepository.countVisible
SELECT
  COUNT(*) AS count
FROM
  tags t
WHERE
  (
    (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    )
    OR EXISTS (
      SELECT
        1
      FROM
        post_tags vt
        JOIN posts vp ON vp.id = vt.post_id
      WHERE
        vt.tag_id = t.id
        AND vp.author_id = ?
    )
  )

-- TagsRepository.countVisible
SELECT
  COUNT(*) AS count
FROM
  tags t
WHERE
  (
    t.post_count > 0
    OR (
      t.announced
      AND t.link_count = 0
    )
  )

-- TagsRepository.delete
DELETE FROM tags
WHERE
  id = ?
RETURNING
  id

-- TagsRepository.ensure
INSERT INTO
  tags (name, slug, created_at, updated_at, version, announced)
VALUES
  (?, ?, ?, ?, 1, FALSE)
ON CONFLICT (slug) DO NOTHING
RETURNING
  id,
  name,
  slug,
  created_at,
  updated_at,
  version

-- TagsRepository.ensure
INSERT INTO
  tags (name, slug, created_at, updated_at, version, announced)
VALUES
  (?, ?, ?, ?, 1, TRUE)
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
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  tags t
WHERE
  t.id = ?

-- TagsRepository.findByIds
SELECT
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  tags t
WHERE
  t.id IN (?, ?, ?)

-- TagsRepository.findBySlug
SELECT
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  tags t
WHERE
  t.slug = ?
  AND (
    (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    )
    OR EXISTS (
      SELECT
        1
      FROM
        post_tags vt
        JOIN posts vp ON vp.id = vt.post_id
      WHERE
        vt.tag_id = t.id
        AND vp.author_id = ?
    )
  )

-- TagsRepository.findBySlug
SELECT
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  tags t
WHERE
  t.slug = ?
  AND (
    t.post_count > 0
    OR (
      t.announced
      AND t.link_count = 0
    )
  )

-- TagsRepository.findVisible
SELECT
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  tags t
WHERE
  t.id = ?
  AND (
    (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    )
    OR EXISTS (
      SELECT
        1
      FROM
        post_tags vt
        JOIN posts vp ON vp.id = vt.post_id
      WHERE
        vt.tag_id = t.id
        AND vp.author_id = ?
    )
  )

-- TagsRepository.findVisible
SELECT
  t.id,
  t.name,
  t.slug,
  t.created_at,
  t.updated_at,
  t.version,
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  tags t
WHERE
  t.id = ?
  AND (
    t.post_count > 0
    OR (
      t.announced
      AND t.link_count = 0
    )
  )

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
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  tags t
WHERE
  (
    (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    )
    OR EXISTS (
      SELECT
        1
      FROM
        post_tags vt
        JOIN posts vp ON vp.id = vt.post_id
      WHERE
        vt.tag_id = t.id
        AND vp.author_id = ?
    )
  )
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
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  tags t
WHERE
  (
    t.post_count < ?
    OR (
      t.post_count = ?
      AND t.id > ?
    )
  )
  AND (
    t.post_count > 0
    OR (
      t.announced
      AND t.link_count = 0
    )
  )
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
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  tags t
WHERE
  (
    t.post_count > 0
    OR (
      t.announced
      AND t.link_count = 0
    )
  )
ORDER BY
  t.post_count DESC,
  t.id
LIMIT
  ?

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
  g.slug,
  g.id
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
  t.post_count AS post_count,
  CASE
    WHEN (
      t.post_count > 0
      OR (
        t.announced
        AND t.link_count = 0
      )
    ) THEN 1
    ELSE 0
  END AS is_public
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
