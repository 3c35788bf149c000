-- Every statement EventLogRepository (src/event-log/event-log.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- EventLogRepository.pruneBatch
DELETE FROM events
WHERE
  id IN (
    SELECT
      id
    FROM
      events
    WHERE
      occurred_at < ?
    ORDER BY
      id
    LIMIT
      ?
  )
RETURNING
  tx,
  id

-- EventLogRepository.pruneBatch
UPDATE events_pruned
SET
  tx = ?,
  event_id = ?
WHERE
  id = 1
  AND (
    tx < ?
    OR (
      tx = ?
      AND event_id < ?
    )
  )

-- EventLogRepository.pruned
SELECT
  tx,
  event_id AS id
FROM
  events_pruned
WHERE
  id = 1
