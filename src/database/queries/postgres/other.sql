-- The statements sent on PostgreSQL outside the repositories (transaction control aside), as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts

-- applySearchLanguage (src/database/search-language.ts)
SELECT
  cfgname
FROM
  pg_ts_config

-- PostPagePlanner.execute (src/api/graphql/plans/post-page-planner.ts)
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
