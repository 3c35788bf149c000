-- The statements sent on PostgreSQL outside the repositories (transaction control aside), as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts

-- PostsPlanner.answer (src/api/graphql/plans/posts-plan.ts)
SELECT
  (
    SELECT
      json_agg(json_build_array(x.v0, x.v1, x.v2, x.v3, x.v4, x.v5, x.v6))::text
    FROM
      (
        SELECT
          t.id AS v0,
          t.title AS v1,
          t.group_published_at AS v2,
          a.id AS v3,
          a.name AS v4,
          a.avatar_url AS v5,
          (
            SELECT
              json_agg(json_build_array(g.id, g.slug, g.name))::text
            FROM
              post_tags pt
              JOIN tags g ON g.id = pt.tag_id
            WHERE
              pt.post_id = t.id
          ) AS v6
        FROM
          posts t
          LEFT JOIN users a ON a.id = t.author_id
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
      ) x
  ) AS planned_posts

-- PostsPlanner.answer (src/api/graphql/plans/posts-plan.ts)
SELECT
  (
    SELECT
      json_agg(json_build_array(x.v0, x.v1, x.v2))::text
    FROM
      (
        SELECT
          t.id AS v0,
          t.group_published_at AS v1,
          (
            SELECT
              json_agg(json_build_array(x.v0, x.v1, x.v2, x.v3))::text
            FROM
              (
                SELECT
                  c.id AS v0,
                  c.body AS v1,
                  u.id AS v2,
                  u.name AS v3
                FROM
                  comments c
                  JOIN users u ON u.id = c.author_id
                WHERE
                  c.post_id = t.id
                  AND c.status = 'approved'
                ORDER BY
                  c.id ASC
                LIMIT
                  $1
              ) x
          ) AS v2
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
          $2
      ) x
  ) AS planned_posts

-- PostsPlanner.answer (src/api/graphql/plans/posts-plan.ts)
SELECT
  (
    SELECT
      json_agg(json_build_array(x.v0, x.v1))::text
    FROM
      (
        SELECT
          t.id AS v0,
          t.group_published_at AS v1
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
      ) x
  ) AS planned_posts,
  (
    SELECT
      COUNT(DISTINCT COALESCE(t.translation_group_id, t.id))
    FROM
      posts t
    WHERE
      t.status = 'published'
  ) AS planned_total

-- PostsPlanner.answer (src/api/graphql/plans/posts-plan.ts)
SELECT
  (
    SELECT
      json_agg(json_build_array(x.v0, x.v1))::text
    FROM
      (
        SELECT
          t.id AS v0,
          t.group_published_at AS v1
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
      ) x
  ) AS planned_posts,
  CASE
    WHEN EXISTS (
      SELECT
        1
      FROM
        posts t
      WHERE
        t.status = 'published'
        AND (t.group_published_at, t.id) >= ($4, $5)
    ) THEN 1
    ELSE 0
  END AS planned_previous

-- PostsPlanner.answer (src/api/graphql/plans/posts-plan.ts)
SELECT
  (
    SELECT
      json_agg(json_build_array(x.v0, x.v1))::text
    FROM
      (
        SELECT
          t.id AS v0,
          t.group_published_at AS v1
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
      ) x
  ) AS planned_posts,
  (
    SELECT
      COUNT(DISTINCT COALESCE(t.translation_group_id, t.id))
    FROM
      posts t
    WHERE
      t.status = 'published'
      AND t.author_id = $4
  ) AS planned_total

-- applySearchLanguage (src/database/search-language.ts)
SELECT
  cfgname
FROM
  pg_ts_config

-- PostPlanner.answer (src/api/graphql/plans/post-plan.ts)
SELECT
  p.id,
  p.title,
  a.id AS a_id,
  a.name AS a_name,
  a.avatar_url AS a_avatar_url,
  (
    SELECT
      json_agg(json_build_array(x.v0, x.v1, x.v2, x.v3))::text
    FROM
      (
        SELECT
          c.id AS v0,
          c.body AS v1,
          u.id AS v2,
          u.name AS v3
        FROM
          comments c
          JOIN users u ON u.id = c.author_id
        WHERE
          c.post_id = $1
          AND c.status = 'approved'
        ORDER BY
          c.id ASC
        LIMIT
          $2
      ) x
  ) AS planned_comments
FROM
  posts p
  JOIN users a ON a.id = p.author_id
WHERE
  p.id = $3
  AND p.status = 'published'

-- PostPlanner.answer (src/api/graphql/plans/post-plan.ts)
SELECT
  p.id,
  p.title,
  p.body,
  a.id AS a_id,
  a.name AS a_name,
  a.avatar_url AS a_avatar_url,
  (
    SELECT
      json_agg(json_build_array(x.v0, x.v1, x.v2, x.v3))::text
    FROM
      (
        SELECT
          c.id AS v0,
          c.body AS v1,
          u.id AS v2,
          u.name AS v3
        FROM
          comments c
          JOIN users u ON u.id = c.author_id
        WHERE
          c.post_id = $1
          AND c.status = 'approved'
        ORDER BY
          c.id ASC
        LIMIT
          $2
      ) x
  ) AS planned_comments,
  (
    SELECT
      json_agg(json_build_array(g.id, g.slug, g.name))::text
    FROM
      post_tags pt
      JOIN tags g ON g.id = pt.tag_id
    WHERE
      pt.post_id = $3
  ) AS planned_tags
FROM
  posts p
  JOIN users a ON a.id = p.author_id
WHERE
  p.id = $4
  AND p.status = 'published'

-- withStartupLock (src/database/migration-runner.ts)
SELECT
  pg_advisory_xact_lock($1)

-- applySearchLanguage (src/database/search-language.ts)
SELECT
  prosrc
FROM
  pg_proc
WHERE
  oid = to_regprocedure('search_configuration(text)')

-- UserPlanner.answer (src/api/graphql/plans/user-plan.ts)
SELECT
  u.id,
  (
    SELECT
      json_agg(json_build_array(x.v0, x.v1, x.v2))::text
    FROM
      (
        SELECT
          t.id AS v0,
          t.title AS v1,
          t.group_published_at AS v2
        FROM
          posts t
        WHERE
          t.status = 'published'
          AND t.author_id = $1
        ORDER BY
          t.group_published_at DESC,
          t.id DESC
        LIMIT
          $2
      ) x
  ) AS planned_posts
FROM
  users u
WHERE
  u.id = $3

-- UserPlanner.answer (src/api/graphql/plans/user-plan.ts)
SELECT
  u.id,
  u.name,
  u.avatar_url,
  (
    SELECT
      json_agg(json_build_array(x.v0, x.v1, x.v2, x.v3, x.v4, x.v5))::text
    FROM
      (
        SELECT
          t.id AS v0,
          t.title AS v1,
          t.group_published_at AS v2,
          a.id AS v3,
          a.name AS v4,
          (
            SELECT
              json_agg(json_build_array(g.id, g.slug))::text
            FROM
              post_tags pt
              JOIN tags g ON g.id = pt.tag_id
            WHERE
              pt.post_id = t.id
          ) AS v5
        FROM
          posts t
          LEFT JOIN users a ON a.id = t.author_id
        WHERE
          t.status = 'published'
          AND t.author_id = $1
        ORDER BY
          t.group_published_at DESC,
          t.id DESC
        LIMIT
          $2
      ) x
  ) AS planned_posts
FROM
  users u
WHERE
  u.id = $3
