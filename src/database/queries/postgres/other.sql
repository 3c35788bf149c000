-- The statements sent on PostgreSQL outside the repositories (transaction control aside), as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts

-- applySearchLanguage (src/database/search-language.ts)
SELECT
  cfgname
FROM
  pg_ts_config

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
