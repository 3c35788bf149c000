-- The statements sent on PostgreSQL outside the repositories (transaction control aside), as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts

-- withStartupLock (src/database/migration-runner.ts)
SELECT
  pg_advisory_lock($1)

-- withStartupLock (src/database/migration-runner.ts)
SELECT
  pg_advisory_unlock($1)
