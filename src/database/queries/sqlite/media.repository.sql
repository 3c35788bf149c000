-- Every statement MediaRepository (src/media/media.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- MediaRepository.avatarsOf
SELECT
  id
FROM
  users
WHERE
  avatar_url LIKE '/media/%'
  AND avatar_url = ?
ORDER BY
  id

-- MediaRepository.claimJobs
UPDATE media_jobs
SET
  claimed_at = ?,
  attempts = attempts + 1
WHERE
  media_id IN (
    SELECT
      media_id
    FROM
      media_jobs
    WHERE
      claimed_at IS NULL
      OR claimed_at < ?
    ORDER BY
      created_at,
      media_id
    LIMIT
      ?
  )
RETURNING
  media_id

-- MediaRepository.countVisible
SELECT
  COUNT(*) AS count
FROM
  media t
WHERE
  (
    t.uploader_id = ?
    OR (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    )
  )

-- MediaRepository.delete
DELETE FROM media
WHERE
  id = ?
RETURNING
  id

-- MediaRepository.enqueueVariants
INSERT INTO
  media_jobs (media_id, attempts, claimed_at, created_at)
VALUES
  (?, 0, NULL, ?)
RETURNING
  media_id

-- MediaRepository.existingIds
SELECT
  id
FROM
  media
WHERE
  id IN (?, ?, ?)

-- MediaRepository.findVisible
SELECT
  t.id,
  t.filename,
  t.mime_type,
  t.size,
  t.width,
  t.height,
  t.alt,
  t.caption,
  t.uploader_id,
  t.created_at,
  t.updated_at,
  t.version,
  CASE
    WHEN t.focal_x IS NULL
    OR t.focal_y IS NULL THEN NULL
    ELSE CAST(t.focal_x AS varchar(32)) || ' ' || CAST(t.focal_y AS varchar(32))
  END AS focal_point,
  CASE
    WHEN (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  media t
WHERE
  t.id = ?
  AND (
    t.uploader_id = ?
    OR (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    )
  )

-- MediaRepository.findWithVisibility
SELECT
  t.id,
  t.filename,
  t.mime_type,
  t.size,
  t.width,
  t.height,
  t.alt,
  t.caption,
  t.uploader_id,
  t.created_at,
  t.updated_at,
  t.version,
  CASE
    WHEN t.focal_x IS NULL
    OR t.focal_y IS NULL THEN NULL
    ELSE CAST(t.focal_x AS varchar(32)) || ' ' || CAST(t.focal_y AS varchar(32))
  END AS focal_point,
  CASE
    WHEN (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  media t
WHERE
  t.id IN (?, ?, ?)

-- MediaRepository.finishJob
DELETE FROM media_jobs
WHERE
  media_id = ?
RETURNING
  media_id

-- MediaRepository.insert
INSERT INTO
  media (filename, mime_type, size, width, height, alt, caption, uploader_id, created_at, updated_at, version)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING
  id,
  filename,
  mime_type,
  size,
  width,
  height,
  alt,
  caption,
  uploader_id,
  created_at,
  updated_at,
  version

-- MediaRepository.insertVariant
INSERT INTO
  media_variants (media_id, name, width, height, mime_type, size, created_at)
VALUES
  (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (media_id, name) DO NOTHING
RETURNING
  name

-- MediaRepository.jobAttempts
SELECT
  attempts
FROM
  media_jobs
WHERE
  media_id = ?

-- MediaRepository.page
SELECT
  t.id,
  t.filename,
  t.mime_type,
  t.size,
  t.width,
  t.height,
  t.alt,
  t.caption,
  t.uploader_id,
  t.created_at,
  t.updated_at,
  t.version,
  CASE
    WHEN t.focal_x IS NULL
    OR t.focal_y IS NULL THEN NULL
    ELSE CAST(t.focal_x AS varchar(32)) || ' ' || CAST(t.focal_y AS varchar(32))
  END AS focal_point,
  CASE
    WHEN (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  media t
WHERE
  t.uploader_id = ?
ORDER BY
  t.id ASC
LIMIT
  ?

-- MediaRepository.passUsedByOthers
UPDATE media
SET
  uploader_id = (
    SELECT
      op.author_id
    FROM
      posts op
    WHERE
      (
        op.cover_image_id = media.id
        OR EXISTS (
          SELECT
            1
          FROM
            post_media opm
          WHERE
            opm.post_id = op.id
            AND opm.media_id = media.id
        )
      )
      AND op.author_id <> ?
    ORDER BY
      op.id
    LIMIT
      1
  )
WHERE
  uploader_id = ?
  AND EXISTS (
    SELECT
      1
    FROM
      posts op
    WHERE
      (
        op.cover_image_id = media.id
        OR EXISTS (
          SELECT
            1
          FROM
            post_media opm
          WHERE
            opm.post_id = op.id
            AND opm.media_id = media.id
        )
      )
      AND op.author_id <> ?
  )
RETURNING
  id

-- MediaRepository.postsUsing
SELECT
  id,
  status,
  author_id
FROM
  posts
WHERE
  cover_image_id = ?
  OR id IN (
    SELECT
      post_id
    FROM
      post_media
    WHERE
      media_id = ?
  )
ORDER BY
  id

-- MediaRepository.releaseJob
UPDATE media_jobs
SET
  claimed_at = NULL
WHERE
  media_id = ?
RETURNING
  media_id

-- MediaRepository.replaceBodyMedia
DELETE FROM post_media
WHERE
  post_id = ?
RETURNING
  media_id

-- MediaRepository.replaceBodyMedia
INSERT INTO
  post_media (post_id, media_id)
SELECT
  CAST(? AS integer),
  t.id
FROM
  media t
WHERE
  t.id IN (?, ?, ?)
RETURNING
  media_id

-- MediaRepository.setFocalPoint
UPDATE media
SET
  focal_x = ?,
  focal_y = ?
WHERE
  id = ?
RETURNING
  id

-- MediaRepository.updateVersioned
UPDATE media
SET
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
RETURNING
  id,
  filename,
  mime_type,
  size,
  width,
  height,
  alt,
  caption,
  uploader_id,
  created_at,
  updated_at,
  version

-- MediaRepository.uploadedBy
SELECT
  t.id,
  t.filename,
  t.mime_type,
  t.size,
  t.width,
  t.height,
  t.alt,
  t.caption,
  t.uploader_id,
  t.created_at,
  t.updated_at,
  t.version,
  CASE
    WHEN t.focal_x IS NULL
    OR t.focal_y IS NULL THEN NULL
    ELSE CAST(t.focal_x AS varchar(32)) || ' ' || CAST(t.focal_y AS varchar(32))
  END AS focal_point,
  CASE
    WHEN (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  media t
WHERE
  t.uploader_id = ?
ORDER BY
  t.id

-- MediaRepository.variantNames
SELECT
  name
FROM
  media_variants
WHERE
  media_id = ?

-- MediaRepository.variantsOf
SELECT
  media_id,
  name,
  width,
  height,
  mime_type,
  size
FROM
  media_variants
WHERE
  media_id IN (?, ?, ?)
ORDER BY
  media_id,
  width,
  name

-- MediaRepository.visibleAmong
SELECT
  t.id,
  t.filename,
  t.mime_type,
  t.size,
  t.width,
  t.height,
  t.alt,
  t.caption,
  t.uploader_id,
  t.created_at,
  t.updated_at,
  t.version,
  CASE
    WHEN t.focal_x IS NULL
    OR t.focal_y IS NULL THEN NULL
    ELSE CAST(t.focal_x AS varchar(32)) || ' ' || CAST(t.focal_y AS varchar(32))
  END AS focal_point,
  CASE
    WHEN (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  media t
WHERE
  t.id IN (?, ?, ?)
  AND (
    t.uploader_id = ?
    OR (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    )
  )

-- MediaRepository.visiblePage
SELECT
  t.id,
  t.filename,
  t.mime_type,
  t.size,
  t.width,
  t.height,
  t.alt,
  t.caption,
  t.uploader_id,
  t.created_at,
  t.updated_at,
  t.version,
  CASE
    WHEN t.focal_x IS NULL
    OR t.focal_y IS NULL THEN NULL
    ELSE CAST(t.focal_x AS varchar(32)) || ' ' || CAST(t.focal_y AS varchar(32))
  END AS focal_point,
  CASE
    WHEN (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  media t
WHERE
  (
    t.uploader_id = ?
    OR (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    )
  )
ORDER BY
  t.id DESC
LIMIT
  ?

-- MediaRepository.visiblePage
SELECT
  t.id,
  t.filename,
  t.mime_type,
  t.size,
  t.width,
  t.height,
  t.alt,
  t.caption,
  t.uploader_id,
  t.created_at,
  t.updated_at,
  t.version,
  CASE
    WHEN t.focal_x IS NULL
    OR t.focal_y IS NULL THEN NULL
    ELSE CAST(t.focal_x AS varchar(32)) || ' ' || CAST(t.focal_y AS varchar(32))
  END AS focal_point,
  CASE
    WHEN (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    ) THEN 1
    ELSE 0
  END AS is_public
FROM
  media t
WHERE
  t.id < ?
  AND (
    t.uploader_id = ?
    OR (
      EXISTS (
        SELECT
          1
        FROM
          posts cp
        WHERE
          cp.cover_image_id = t.id
          AND cp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          post_media pm
          JOIN posts bp ON bp.id = pm.post_id
        WHERE
          pm.media_id = t.id
          AND bp.status = 'published'
      )
      OR EXISTS (
        SELECT
          1
        FROM
          users au
        WHERE
          au.avatar_url LIKE '/media/%'
          AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))
      )
    )
  )
ORDER BY
  t.id DESC
LIMIT
  ?
