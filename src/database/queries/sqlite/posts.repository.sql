-- Every statement PostsRepository (src/posts/posts.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- PostsRepository.anyDue
SELECT
  1 AS found
FROM
  posts
WHERE
  status = 'scheduled'
  AND publish_at <= ?
LIMIT
  1

-- PostsRepository.anyPublicFrom
SELECT
  1 AS found
FROM
  posts t
WHERE
  t.status = 'published'
  AND (t.group_published_at, t.id) >= (?, ?)
LIMIT
  1

-- PostsRepository.bumpPreviewStamp
UPDATE posts
SET
  preview_stamp = preview_stamp + 1
WHERE
  id = ?

-- PostsRepository.cascadedComments
SELECT
  id,
  author_id,
  status
FROM
  comments
WHERE
  post_id = ?

-- PostsRepository.countMatching
SELECT
  COUNT(DISTINCT COALESCE(t.translation_group_id, t.id)) AS count
FROM
  posts t
WHERE
  t.status = ?
  AND t.author_id = ?

-- PostsRepository.countMatching
SELECT
  id
FROM
  tags
WHERE
  slug IN (?, ?, ?)

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
  AND t.author_id = ?

-- PostsRepository.customExcerptOf
SELECT
  custom_excerpt
FROM
  posts
WHERE
  id = ?

-- PostsRepository.delete
DELETE FROM posts
WHERE
  id = ?
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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
FROM
  posts t
WHERE
  t.id = ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
FROM
  posts t
WHERE
  t.id IN (?, ?, ?)

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  t.id IN (?, ?, ?)

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
  t.id = ?

-- PostsRepository.findPage
SELECT
  id
FROM
  tags
WHERE
  slug IN (?, ?, ?)

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  t.status = ?
  AND t.author_id = ?
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = ?
      AND b.author_id = ?
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  AND (t.group_published_at, t.id) > (?, ?)
ORDER BY
  t.group_published_at ASC,
  t.id ASC
LIMIT
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  AND (t.title, t.id) > (?, ?)
ORDER BY
  t.title ASC,
  t.id ASC
LIMIT
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  AND (t.updated_at, t.id) < (?, ?)
ORDER BY
  t.updated_at DESC,
  t.id DESC
LIMIT
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  AND t.group_published_at >= ?
  AND t.group_published_at < ?
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND b.group_published_at >= ?
      AND b.group_published_at < ?
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
  AND (t.group_published_at, t.id) < (?, ?)
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  AND t.group_published_at >= ?
  AND t.group_published_at < ?
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND b.group_published_at >= ?
      AND b.group_published_at < ?
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time,
  p.rank AS search_rank,
  (
    SELECT
      snippet (posts_fts, -1, '', '', '…', 24)
    FROM
      posts_fts
    WHERE
      posts_fts MATCH p.query
      AND posts_fts.rowid = p.id
  ) AS search_snippet
FROM
  (
    SELECT
      t.id,
      s.rank,
      s.query,
      s.source
    FROM
      (
        SELECT
          posts_fts.rowid AS id,
          (
            CASE
              WHEN - bm25 (posts_fts, 10.0, 1.0) >= 1e-4 THEN - bm25 (posts_fts, 10.0, 1.0)
              ELSE 0
            END + 1e-9 * (
              10.0 * (length(highlight (posts_fts, 0, char(1), '')) - length(posts_fts.title)) + (length(highlight (posts_fts, 1, char(1), '')) - length(posts_fts.body))
            )
          ) AS rank,
          q.query,
          0 AS source
        FROM
          (
            SELECT
              ? AS query
          ) q
          CROSS JOIN posts_fts
        WHERE
          posts_fts MATCH q.query
      ) s
      JOIN posts t ON t.id = s.id
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
          AND b.id IN (
            SELECT
              rowid
            FROM
              posts_fts
            WHERE
              posts_fts MATCH ?
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
      AND (s.rank, t.id) < (?, ?)
    ORDER BY
      s.rank DESC,
      t.id DESC
    LIMIT
      ?
  ) p
  JOIN posts t ON t.id = p.id
ORDER BY
  p.rank DESC,
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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time,
  p.rank AS search_rank,
  (
    SELECT
      snippet (posts_fts, -1, '', '', '…', 24)
    FROM
      posts_fts
    WHERE
      posts_fts MATCH p.query
      AND posts_fts.rowid = p.id
  ) AS search_snippet
FROM
  (
    SELECT
      t.id,
      s.rank,
      s.query,
      s.source
    FROM
      (
        SELECT
          posts_fts.rowid AS id,
          (
            CASE
              WHEN - bm25 (posts_fts, 10.0, 1.0) >= 1e-4 THEN - bm25 (posts_fts, 10.0, 1.0)
              ELSE 0
            END + 1e-9 * (
              10.0 * (length(highlight (posts_fts, 0, char(1), '')) - length(posts_fts.title)) + (length(highlight (posts_fts, 1, char(1), '')) - length(posts_fts.body))
            )
          ) AS rank,
          q.query,
          0 AS source
        FROM
          (
            SELECT
              ? AS query
          ) q
          CROSS JOIN posts_fts
        WHERE
          posts_fts MATCH q.query
      ) s
      JOIN posts t ON t.id = s.id
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
          AND b.id IN (
            SELECT
              rowid
            FROM
              posts_fts
            WHERE
              posts_fts MATCH ?
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
      AND (t.title, t.id) > (?, ?)
    ORDER BY
      t.title ASC,
      t.id ASC
    LIMIT
      ?
  ) p
  JOIN posts t ON t.id = p.id
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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time,
  p.rank AS search_rank,
  (
    SELECT
      snippet (posts_fts, -1, '', '', '…', 24)
    FROM
      posts_fts
    WHERE
      posts_fts MATCH p.query
      AND posts_fts.rowid = p.id
  ) AS search_snippet
FROM
  (
    SELECT
      t.id,
      s.rank,
      s.query,
      s.source
    FROM
      (
        SELECT
          posts_fts.rowid AS id,
          (
            CASE
              WHEN - bm25 (posts_fts, 10.0, 1.0) >= 1e-4 THEN - bm25 (posts_fts, 10.0, 1.0)
              ELSE 0
            END + 1e-9 * (
              10.0 * (length(highlight (posts_fts, 0, char(1), '')) - length(posts_fts.title)) + (length(highlight (posts_fts, 1, char(1), '')) - length(posts_fts.body))
            )
          ) AS rank,
          q.query,
          0 AS source
        FROM
          (
            SELECT
              ? AS query
          ) q
          CROSS JOIN posts_fts
        WHERE
          posts_fts MATCH q.query
      ) s
      JOIN posts t ON t.id = s.id
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
          AND b.id IN (
            SELECT
              rowid
            FROM
              posts_fts
            WHERE
              posts_fts MATCH ?
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
      s.rank DESC,
      t.id DESC
    LIMIT
      ?
  ) p
  JOIN posts t ON t.id = p.id
ORDER BY
  p.rank DESC,
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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members,
  t.group_published_at AS list_time,
  p.rank AS search_rank,
  (
    SELECT
      snippet (posts_fts, -1, '', '', '…', 24)
    FROM
      posts_fts
    WHERE
      posts_fts MATCH p.query
      AND posts_fts.rowid = p.id
  ) AS search_snippet
FROM
  (
    SELECT
      t.id,
      s.rank,
      s.query,
      s.source
    FROM
      (
        SELECT
          posts_fts.rowid AS id,
          (
            CASE
              WHEN - bm25 (posts_fts, 10.0, 1.0) >= 1e-4 THEN - bm25 (posts_fts, 10.0, 1.0)
              ELSE 0
            END + 1e-9 * (
              10.0 * (length(highlight (posts_fts, 0, char(1), '')) - length(posts_fts.title)) + (length(highlight (posts_fts, 1, char(1), '')) - length(posts_fts.body))
            )
          ) AS rank,
          q.query,
          0 AS source
        FROM
          (
            SELECT
              ? AS query
          ) q
          CROSS JOIN posts_fts
        WHERE
          posts_fts MATCH q.query
      ) s
      JOIN posts t ON t.id = s.id
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
          AND b.id IN (
            SELECT
              rowid
            FROM
              posts_fts
            WHERE
              posts_fts MATCH ?
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
      t.title ASC,
      t.id ASC
    LIMIT
      ?
  ) p
  JOIN posts t ON t.id = p.id
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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
      AND pt.tag_id = ?
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
          AND pt.tag_id = ?
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
  ?

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
  k.id = ?

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
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
  AND t.publish_at <= ?
ORDER BY
  t.publish_at,
  t.id
LIMIT
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
FROM
  posts t
WHERE
  t.author_id = ?
ORDER BY
  t.id ASC
LIMIT
  ?

-- PostsRepository.placeGroup
UPDATE posts
SET
  group_published_at = ?
WHERE
  COALESCE(posts.translation_group_id, posts.id) = ?
  AND id <> ?
  AND (
    group_published_at IS NULL
    OR group_published_at > ?
  )

-- PostsRepository.previewStampOf
SELECT
  preview_stamp
FROM
  posts
WHERE
  id = ?

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
  ?
OFFSET
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  AND (t.group_published_at, t.id) < (?, ?)
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  AND t.author_id = ?
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND b.author_id = ?
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
  AND (t.group_published_at, t.id) < (?, ?)
ORDER BY
  t.group_published_at DESC,
  t.id DESC
LIMIT
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  AND t.author_id = ?
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = 'published'
      AND b.author_id = ?
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
          AND ranked.author_id IN (?, ?, ?)
      ) page
    WHERE
      page.rn <= ?
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
      AND pt.tag_id IN (?, ?, ?)
  ) page
  JOIN posts p ON p.id = page.post_id
WHERE
  page.rn <= ?
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
      ?
    OFFSET
      ?
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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
    FROM
      posts m
    WHERE
      COALESCE(m.translation_group_id, m.id) = COALESCE(t.translation_group_id, t.id)
      AND m.id <> t.id
  ) AS group_members
FROM
  posts t
WHERE
  t.status = ?
  AND t.author_id = ?
  AND NOT EXISTS (
    SELECT
      1
    FROM
      posts b
    WHERE
      COALESCE(b.translation_group_id, b.id) = COALESCE(t.translation_group_id, t.id)
      AND b.id <> t.id
      AND b.status = ?
      AND b.author_id = ?
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
  ?

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
  (
    SELECT
      group_concat(g.slug || ' ' || g.id, char(31))
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = t.id
  ) AS tags,
  (
    SELECT
      group_concat(m.locale || ' ' || m.id || ' ' || m.status || ' ' || m.author_id, char(31))
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
  o.id IN (?, ?, ?)

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
  id = ?

-- PostsRepository.trashedBefore
SELECT
  id
FROM
  posts
WHERE
  status = 'trashed'
  AND trashed_at < ?
ORDER BY
  trashed_at,
  id
LIMIT
  ?

-- PostsRepository.updateVersioned
UPDATE posts
SET
  body = ?,
  body_html = ?,
  excerpt = ?,
  reading_time_minutes = ?,
  custom_excerpt = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  cover_image_id = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  slug = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  status = ?,
  publish_at = ?,
  published_at = ?,
  group_published_at = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  status = ?,
  published_at = ?,
  group_published_at = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  status = ?,
  trashed_at = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  title = ?,
  body = ?,
  body_html = ?,
  excerpt = ?,
  reading_time_minutes = ?,
  custom_excerpt = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
  AND version = ?
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
  title = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  id = ?
