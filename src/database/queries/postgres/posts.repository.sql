-- Every statement PostsRepository (src/posts/posts.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- PostsRepository.anyDue
SELECT
  1 AS found
FROM
  posts
WHERE
  status = 'scheduled'
  AND publish_at <= $1
LIMIT
  1

-- PostsRepository.anyPublicFrom
SELECT
  1 AS found
FROM
  posts t
WHERE
  t.status = 'published'
  AND (t.group_published_at, t.id) >= ($1, $2)
LIMIT
  1

-- PostsRepository.bumpPreviewStamp
UPDATE posts
SET
  preview_stamp = preview_stamp + 1
WHERE
  id = $1

-- PostsRepository.cascadedComments
SELECT
  id,
  author_id,
  status
FROM
  comments
WHERE
  post_id = $1

-- PostsRepository.countMatching
SELECT
  COUNT(DISTINCT COALESCE(t.translation_group_id, t.id)) AS count
FROM
  posts t
WHERE
  t.status = $1
  AND t.author_id = $2

-- PostsRepository.countMatching
SELECT
  id
FROM
  tags
WHERE
  slug IN ($1, $2, $3)

-- PostsRepository.countVisible
SELECT
  COUNT(*) AS count
FROM
  posts t
WHERE
  t.status = 'published'

-- PostsRepository.countVisible
SELECT
  COUNT(DISTINCT COALESCE(t.translation_group_id, t.id)) AS count
FROM
  posts t
WHERE
  t.status = 'published'

-- PostsRepository.countVisible
SELECT
  COUNT(DISTINCT COALESCE(t.translation_group_id, t.id)) AS count
FROM
  posts t
WHERE
  t.status = 'published'
  AND t.author_id = $1

-- PostsRepository.customExcerptOf
SELECT
  custom_excerpt
FROM
  posts
WHERE
  id = $1

-- PostsRepository.delete
DELETE FROM posts
WHERE
  id = $1
RETURNING
  id

-- PostsRepository.findById
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
FROM
  posts t
WHERE
  t.id = $1

-- PostsRepository.findByIds
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
FROM
  posts t
WHERE
  t.id IN ($1, $2, $3)

-- PostsRepository.findByIds
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  j.id AS j_id,
  j.name AS j_name,
  j.email AS j_email,
  j.avatar_url AS j_avatar_url,
  j.role AS j_role,
  j.comments_blocked AS j_comments_blocked,
  j.created_at AS j_created_at,
  j.updated_at AS j_updated_at,
  j.version AS j_version
FROM
  posts t
  JOIN users j ON j.id = t.author_id
WHERE
  t.id IN ($1, $2, $3)

-- PostsRepository.findForUpdate
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  t.translation_group_id,
  t.group_published_at,
  CASE
    WHEN EXISTS (
      SELECT
        1
      FROM
        posts o
      WHERE
        COALESCE(o.translation_group_id, o.id) = COALESCE(t.translation_group_id, t.id)
        AND o.id <> t.id
    ) THEN 1
    ELSE 0
  END AS shares_group
FROM
  posts t
WHERE
  t.id = $1
FOR UPDATE

-- PostsRepository.findPage
SELECT
  id
FROM
  tags
WHERE
  slug IN ($1, $2, $3)

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
  AND (t.group_published_at, t.id) > ($1, $2)
ORDER BY
  t.group_published_at ASC,
  t.id ASC
LIMIT
  $3

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
  AND (t.title, t.id) > ($1, $2)
ORDER BY
  t.title ASC,
  t.id ASC
LIMIT
  $3

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
  AND (t.updated_at, t.id) < ($1, $2)
ORDER BY
  t.updated_at DESC,
  t.id DESC
LIMIT
  $3

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
ORDER BY
  t.group_published_at ASC,
  t.id ASC
LIMIT
  $1

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
ORDER BY
  t.title ASC,
  t.id ASC
LIMIT
  $1

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
ORDER BY
  t.updated_at DESC,
  t.id DESC
LIMIT
  $1

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND t.group_published_at >= $1
  AND t.group_published_at < $2
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND b.group_published_at >= $3
      AND b.group_published_at < $4
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
  AND (t.group_published_at, t.id) < ($5, $6)
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  $7

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND t.group_published_at >= $1
  AND t.group_published_at < $2
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND b.group_published_at >= $3
      AND b.group_published_at < $4
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  $5

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = $1
  AND t.author_id = $2
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = $3
      AND b.author_id = $4
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
ORDER BY
  t.title ASC,
  t.id ASC
LIMIT
  $5

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time,
  s.rank AS search_rank,
  ts_headline(
    search_configuration (t.locale),
    t.title || ' ' || t.body,
    s.query,
    'StartSel="", StopSel="", MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "'
  ) AS search_snippet
FROM
  (
    SELECT
      t.id,
      ts_rank_cd(t.search, q.query)::float8 AS rank,
      q.query
    FROM
      posts t
      CROSS JOIN (
        SELECT
          websearch_to_tsquery(search_configuration ($1), $2)
      ) AS q (query)
    WHERE
      t.search @@ q.query
      AND t.status = 'published'
      AND NOT EXISTS (
        SELECT
          1
        FROM
          posts b
        WHERE
          COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
          AND b.id <> t.id
          AND b.status = 'published'
          AND b.search @@ (websearch_to_tsquery(search_configuration ($3), $4))
          AND (
            CASE b.locale
              WHEN 'en' THEN 0
              ELSE 1
            END,
            b.id
          ) < (
            CASE t.locale
              WHEN 'en' THEN 0
              ELSE 1
            END,
            t.id
          )
      )
      AND (t.title, t.id) > ($5, $6)
    ORDER BY
      t.title ASC,
      t.id ASC
    LIMIT
      $7
  ) s
  JOIN posts t ON t.id = s.id
ORDER BY
  t.title ASC,
  t.id ASC

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time,
  s.rank AS search_rank,
  ts_headline(
    search_configuration (t.locale),
    t.title || ' ' || t.body,
    s.query,
    'StartSel="", StopSel="", MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "'
  ) AS search_snippet
FROM
  (
    SELECT
      t.id,
      ts_rank_cd(t.search, q.query)::float8 AS rank,
      q.query
    FROM
      posts t
      CROSS JOIN (
        SELECT
          websearch_to_tsquery(search_configuration ($1), $2)
      ) AS q (query)
    WHERE
      t.search @@ q.query
      AND t.status = 'published'
      AND NOT EXISTS (
        SELECT
          1
        FROM
          posts b
        WHERE
          COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
          AND b.id <> t.id
          AND b.status = 'published'
          AND b.search @@ (websearch_to_tsquery(search_configuration ($3), $4))
          AND (
            CASE b.locale
              WHEN 'en' THEN 0
              ELSE 1
            END,
            b.id
          ) < (
            CASE t.locale
              WHEN 'en' THEN 0
              ELSE 1
            END,
            t.id
          )
      )
      AND (ts_rank_cd(t.search, q.query)::float8, t.id) < ($5, $6)
    ORDER BY
      ts_rank_cd(t.search, q.query)::float8 DESC,
      t.id DESC
    LIMIT
      $7
  ) s
  JOIN posts t ON t.id = s.id
ORDER BY
  s.rank DESC,
  t.id DESC

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time,
  s.rank AS search_rank,
  ts_headline(
    search_configuration (t.locale),
    t.title || ' ' || t.body,
    s.query,
    'StartSel="", StopSel="", MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "'
  ) AS search_snippet
FROM
  (
    SELECT
      t.id,
      ts_rank_cd(t.search, q.query)::float8 AS rank,
      q.query
    FROM
      posts t
      CROSS JOIN (
        SELECT
          websearch_to_tsquery(search_configuration ($1), $2)
      ) AS q (query)
    WHERE
      t.search @@ q.query
      AND t.status = 'published'
      AND NOT EXISTS (
        SELECT
          1
        FROM
          posts b
        WHERE
          COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
          AND b.id <> t.id
          AND b.status = 'published'
          AND b.search @@ (websearch_to_tsquery(search_configuration ($3), $4))
          AND (
            CASE b.locale
              WHEN 'en' THEN 0
              ELSE 1
            END,
            b.id
          ) < (
            CASE t.locale
              WHEN 'en' THEN 0
              ELSE 1
            END,
            t.id
          )
      )
    ORDER BY
      t.title ASC,
      t.id ASC
    LIMIT
      $5
  ) s
  JOIN posts t ON t.id = s.id
ORDER BY
  t.title ASC,
  t.id ASC

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time,
  s.rank AS search_rank,
  ts_headline(
    search_configuration (t.locale),
    t.title || ' ' || t.body,
    s.query,
    'StartSel="", StopSel="", MaxWords=30, MinWords=12, MaxFragments=1, FragmentDelimiter=" … "'
  ) AS search_snippet
FROM
  (
    SELECT
      t.id,
      ts_rank_cd(t.search, q.query)::float8 AS rank,
      q.query
    FROM
      posts t
      CROSS JOIN (
        SELECT
          websearch_to_tsquery(search_configuration ($1), $2)
      ) AS q (query)
    WHERE
      t.search @@ q.query
      AND t.status = 'published'
      AND NOT EXISTS (
        SELECT
          1
        FROM
          posts b
        WHERE
          COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
          AND b.id <> t.id
          AND b.status = 'published'
          AND b.search @@ (websearch_to_tsquery(search_configuration ($3), $4))
          AND (
            CASE b.locale
              WHEN 'en' THEN 0
              ELSE 1
            END,
            b.id
          ) < (
            CASE t.locale
              WHEN 'en' THEN 0
              ELSE 1
            END,
            t.id
          )
      )
    ORDER BY
      ts_rank_cd(t.search, q.query)::float8 DESC,
      t.id DESC
    LIMIT
      $5
  ) s
  JOIN posts t ON t.id = s.id
ORDER BY
  s.rank DESC,
  t.id DESC

-- PostsRepository.findPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND EXISTS (
    SELECT
      1
    FROM
      post_tags pt
    WHERE
      pt.post_id = t.id
      AND pt.tag_id = $1
  )
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND EXISTS (
        SELECT
          1
        FROM
          post_tags pt
        WHERE
          pt.post_id = b.id
          AND pt.tag_id = $2
      )
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  $3

-- PostsRepository.groupMembersOf
SELECT
  m.locale,
  m.id,
  m.status,
  m.author_id
FROM
  posts m
  JOIN posts k ON COALESCE(m.translation_group_id, m.id) = COALESCE(k.translation_group_id, k.id)
  AND m.id <> k.id
WHERE
  k.id = $1

-- PostsRepository.insert
INSERT INTO
  posts (
    title,
    slug,
    body,
    body_format,
    body_html,
    excerpt,
    reading_time_minutes,
    locale,
    author_id,
    status,
    publish_at,
    created_at,
    updated_at,
    version
  )
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.insert
INSERT INTO
  posts (
    title,
    slug,
    body,
    body_format,
    body_html,
    excerpt,
    reading_time_minutes,
    locale,
    author_id,
    status,
    published_at,
    created_at,
    updated_at,
    version,
    group_published_at
  )
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.insert
INSERT INTO
  posts (
    title,
    slug,
    body,
    body_format,
    body_html,
    excerpt,
    reading_time_minutes,
    meta_title,
    meta_description,
    canonical_url,
    cover_image_id,
    locale,
    author_id,
    status,
    publish_at,
    published_at,
    trashed_at,
    created_at,
    updated_at,
    version,
    custom_excerpt,
    group_published_at
  )
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.insert
INSERT INTO
  posts (
    title,
    slug,
    body,
    body_format,
    body_html,
    excerpt,
    reading_time_minutes,
    meta_title,
    meta_description,
    canonical_url,
    cover_image_id,
    locale,
    author_id,
    status,
    publish_at,
    published_at,
    trashed_at,
    created_at,
    updated_at,
    version,
    custom_excerpt,
    translation_group_id,
    group_published_at
  )
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.insertClaiming
WITH
  r AS (
    INSERT INTO
      posts (
        title,
        slug,
        body,
        body_format,
        body_html,
        excerpt,
        reading_time_minutes,
        meta_title,
        meta_description,
        canonical_url,
        cover_image_id,
        locale,
        author_id,
        status,
        publish_at,
        published_at,
        trashed_at,
        created_at,
        updated_at,
        version,
        custom_excerpt,
        group_published_at
      )
    VALUES
      ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
    RETURNING
      id,
      title,
      slug,
      body,
      body_format,
      body_html,
      excerpt,
      reading_time_minutes,
      meta_title,
      meta_description,
      canonical_url,
      cover_image_id,
      locale,
      author_id,
      status,
      publish_at,
      published_at,
      trashed_at,
      created_at,
      updated_at,
      version
  ),
  guard AS (
    INSERT INTO
      post_slugs (slug, post_id)
    SELECT
      r.slug,
      r.id
    FROM
      r
    ON CONFLICT (slug) DO NOTHING
    RETURNING
      slug
  ),
  companion_1 AS (
    INSERT INTO
      post_revisions (post_id, number, title, body, status, editor_id, created_at)
    SELECT
      r.id,
      1,
      r.title,
      r.body,
      r.status,
      $23,
      r.updated_at
    FROM
      r
    WHERE
      EXISTS (
        SELECT
          1
        FROM
          guard
      )
  ),
  companion_2 AS (
    INSERT INTO
      audit_entries (
        at,
        actor_id,
        actor_credential,
        actor_key_id,
        action,
        resource_type,
        resource_id,
        changes,
        ip,
        user_agent,
        request_id,
        trace_id
      )
    SELECT
      $24,
      $25,
      $26,
      $27,
      $28,
      $29,
      r.id,
      $30,
      $31,
      $32,
      $33,
      $34
    FROM
      r
    WHERE
      EXISTS (
        SELECT
          1
        FROM
          guard
      )
  ),
  companion_3 AS (
    INSERT INTO
      events (
        type,
        occurred_at,
        tag_id,
        post_id,
        author_id,
        comment_id,
        media_id,
        resource,
        origin,
        audience,
        audience_owner,
        audience_except,
        audience_except_owner,
        trace_parent
      )
    SELECT
      $35,
      $36,
      NULL,
      r.id,
      r.author_id,
      NULL,
      NULL,
      '{"id":' || CAST(r.id AS text) || CAST($37 AS text),
      $38,
      $39,
      $40,
      $41,
      $42,
      $43
    FROM
      r
    WHERE
      EXISTS (
        SELECT
          1
        FROM
          guard
      )
  )
SELECT
  r.*,
  EXISTS (
    SELECT
      1
    FROM
      guard
  ) AS guard_held
FROM
  r

-- PostsRepository.lockDue
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  t.translation_group_id,
  t.group_published_at,
  CASE
    WHEN EXISTS (
      SELECT
        1
      FROM
        posts o
      WHERE
        COALESCE(o.translation_group_id, o.id) = COALESCE(t.translation_group_id, t.id)
        AND o.id <> t.id
    ) THEN 1
    ELSE 0
  END AS shares_group
FROM
  posts t
WHERE
  t.status = 'scheduled'
  AND t.publish_at <= $1
ORDER BY
  t.publish_at,
  t.id
LIMIT
  $2
FOR UPDATE
  SKIP LOCKED

-- PostsRepository.page
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
FROM
  posts t
WHERE
  t.author_id = $1
ORDER BY
  t.id ASC
LIMIT
  $2

-- PostsRepository.placeGroup
UPDATE posts
SET
  group_published_at = $1
WHERE
  COALESCE(posts.translation_group_id, posts.id) = $2
  AND id <> $3
  AND (
    group_published_at IS NULL
    OR group_published_at > $4
  )

-- PostsRepository.previewStampOf
SELECT
  preview_stamp
FROM
  posts
WHERE
  id = $1

-- PostsRepository.publicAddresses
SELECT
  t.id,
  t.slug,
  t.locale,
  t.published_at,
  t.created_at,
  t.updated_at,
  COALESCE(t.translation_group_id, t.id) AS group_id
FROM
  posts t
WHERE
  t.status = 'published'
ORDER BY
  t.id
LIMIT
  $1
OFFSET
  $2

-- PostsRepository.publicPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND (
        CASE b.locale
          WHEN 'de' THEN 0
          WHEN 'en' THEN 1
          ELSE 2
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'de' THEN 0
          WHEN 'en' THEN 1
          ELSE 2
        END,
        t.id
      )
  )
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  $1

-- PostsRepository.publicPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
  AND (t.group_published_at, t.id) < ($1, $2)
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  $3

-- PostsRepository.publicPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  $1

-- PostsRepository.publicPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND t.author_id = $1
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND b.author_id = $2
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
  AND (t.group_published_at, t.id) < ($3, $4)
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  $5

-- PostsRepository.publicPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
  AND t.author_id = $1
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND b.author_id = $2
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  $3

-- PostsRepository.publicPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time
FROM
  posts t
WHERE
  t.status = 'published'
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  $1

-- PostsRepository.publicPagesFor
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
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
              ranked.group_published_at DESC,
              ranked.id DESC
          ) AS rn
        FROM
          posts ranked
        WHERE
          ranked.status = 'published'
          AND ranked.author_id IN ($1, $2, $3)
      ) page
    WHERE
      page.rn <= $4
  )
ORDER BY
  t.group_published_at DESC,
  t.id DESC

-- PostsRepository.publicPagesOfTags
SELECT
  page.tag_id AS of_tag_id,
  p.id,
  p.title,
  p.slug,
  p.body,
  p.body_format,
  p.body_html,
  p.excerpt,
  p.reading_time_minutes,
  p.meta_title,
  p.meta_description,
  p.canonical_url,
  p.cover_image_id,
  p.locale,
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
          r.group_published_at DESC,
          r.id DESC
      ) AS rn
    FROM
      post_tags pt
      JOIN posts r ON r.id = pt.post_id
    WHERE
      r.status = 'published'
      AND pt.tag_id IN ($1, $2, $3)
  ) page
  JOIN posts p ON p.id = page.post_id
WHERE
  page.rn <= $4
ORDER BY
  p.group_published_at DESC,
  p.id DESC

-- PostsRepository.publicTranslationsOfPage
SELECT
  a.id,
  a.slug,
  a.locale,
  a.published_at,
  a.created_at,
  a.updated_at,
  COALESCE(a.translation_group_id, a.id) AS group_id
FROM
  posts a
WHERE
  a.status = 'published'
  AND COALESCE(a.translation_group_id, a.id) IN (
    SELECT
      COALESCE(t.translation_group_id, t.id)
    FROM
      posts t
    WHERE
      t.status = 'published'
    ORDER BY
      t.id
    LIMIT
      $1
    OFFSET
      $2
  )
  AND EXISTS (
    SELECT
      1
    FROM
      posts o
    WHERE
      COALESCE(o.translation_group_id, o.id) = COALESCE(a.translation_group_id, a.id)
      AND o.id <> a.id
      AND o.status = 'published'
  )

-- PostsRepository.statusPage
SELECT
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
FROM
  posts t
WHERE
  t.status = $1
  AND t.author_id = $2
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = $3
      AND b.author_id = $4
      AND (
        CASE b.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        b.id
      ) < (
        CASE t.locale
          WHEN 'en' THEN 0
          ELSE 1
        END,
        t.id
      )
  )
ORDER BY
  t.id DESC
LIMIT
  $5

-- PostsRepository.translationsOf
SELECT
  o.id AS of_post_id,
  t.id,
  t.title,
  t.slug,
  t.body,
  t.body_format,
  t.body_html,
  t.excerpt,
  t.reading_time_minutes,
  t.meta_title,
  t.meta_description,
  t.canonical_url,
  t.cover_image_id,
  t.locale,
  t.author_id,
  t.status,
  t.publish_at,
  t.published_at,
  t.trashed_at,
  t.created_at,
  t.updated_at,
  t.version,
  ARRAY(
    SELECT
      g.slug || ' ' || g.id
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  ARRAY(
    SELECT
      m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
FROM
  posts o
  JOIN posts t ON COALESCE(t.translation_group_id, t.id) = COALESCE(o.translation_group_id, o.id)
  AND t.id <> o.id
WHERE
  o.id IN ($1, $2, $3)

-- PostsRepository.translationSourceOf
SELECT
  status,
  author_id,
  locale,
  translation_group_id,
  group_published_at
FROM
  posts
WHERE
  id = $1

-- PostsRepository.trashedBefore
SELECT
  id
FROM
  posts
WHERE
  status = 'trashed'
  AND trashed_at < $1
ORDER BY
  trashed_at,
  id
LIMIT
  $2

-- PostsRepository.updateVersioned
UPDATE posts
SET
  body = $1,
  body_html = $2,
  excerpt = $3,
  reading_time_minutes = $4,
  custom_excerpt = $5,
  updated_at = $6,
  version = version + 1
WHERE
  id = $7
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.updateVersioned
UPDATE posts
SET
  cover_image_id = $1,
  updated_at = $2,
  version = version + 1
WHERE
  id = $3
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.updateVersioned
UPDATE posts
SET
  slug = $1,
  updated_at = $2,
  version = version + 1
WHERE
  id = $3
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.updateVersioned
UPDATE posts
SET
  status = $1,
  publish_at = $2,
  published_at = $3,
  group_published_at = $4,
  updated_at = $5,
  version = version + 1
WHERE
  id = $6
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.updateVersioned
UPDATE posts
SET
  status = $1,
  published_at = $2,
  group_published_at = $3,
  updated_at = $4,
  version = version + 1
WHERE
  id = $5
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.updateVersioned
UPDATE posts
SET
  status = $1,
  trashed_at = $2,
  updated_at = $3,
  version = version + 1
WHERE
  id = $4
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.updateVersioned
UPDATE posts
SET
  title = $1,
  body = $2,
  body_html = $3,
  excerpt = $4,
  reading_time_minutes = $5,
  custom_excerpt = $6,
  updated_at = $7,
  version = version + 1
WHERE
  id = $8
  AND version = $9
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
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
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.updateVersioned
UPDATE posts
SET
  updated_at = $1,
  version = version + 1
WHERE
  id = $2
RETURNING
  id,
  title,
  slug,
  body,
  body_format,
  body_html,
  excerpt,
  reading_time_minutes,
  meta_title,
  meta_description,
  canonical_url,
  cover_image_id,
  locale,
  author_id,
  status,
  publish_at,
  published_at,
  trashed_at,
  created_at,
  updated_at,
  version

-- PostsRepository.visibilityOf
SELECT
  status,
  author_id
FROM
  posts
WHERE
  id = $1
