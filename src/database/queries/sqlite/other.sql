-- The statements sent on SQLite outside the repositories (transaction control aside), as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts

-- PostPagePlanner.execute (src/api/graphql/plans/post-page-planner.ts)
SELECT
  p.id,
  p.title,
  a.id AS a_id,
  a.name AS a_name,
  a.avatar_url AS a_avatar_url,
  (
    SELECT
      json_group_array(json_array(x.v0, x.v1, x.v2, x.v3))
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
          c.post_id = ?
          AND c.status = 'approved'
        ORDER BY
          c.id ASC
        LIMIT
          ?
      ) x
  ) AS planned_comments
FROM
  posts p
  JOIN users a ON a.id = p.author_id
WHERE
  p.id = ?
  AND p.status = 'published'
