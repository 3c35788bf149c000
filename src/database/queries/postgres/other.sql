-- The statements sent on PostgreSQL outside the repositories (transaction control aside), as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts

-- applySearchLanguage (src/database/search-language.ts)
SELECT
  1 AS found
FROM
  pg_ts_config
WHERE
  cfgname = $1

-- withStartupLock (src/database/migration-runner.ts)
SELECT
  pg_advisory_xact_lock($1)

-- applySearchLanguage (src/database/search-language.ts)
SELECT
  pg_get_expr(d.adbin, d.adrelid) AS expression
FROM
  pg_attribute a
  JOIN pg_attrdef d ON d.adrelid = a.attrelid
  AND d.adnum = a.attnum
WHERE
  a.attrelid = 'posts'::regclass
  AND a.attname = 'search'
  AND NOT a.attisdropped
