-- Every statement EventLogRepository (src/event-log/event-log.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
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
      occurred_at < $1
      AND tx < (
        SELECT
          coalesce(min(open.xid), pg_snapshot_xmax(pg_current_snapshot())::text::bigint)
        FROM
          (
            SELECT
              x::text::bigint AS xid
            FROM
              pg_snapshot_xip(pg_current_snapshot()) x
            WHERE
              x::text::bigint % 4294967296 NOT IN (
                SELECT
                  backend_xid::text::bigint
                FROM
                  pg_stat_get_activity (NULL)
                WHERE
                  backend_xid IS NOT NULL
                  AND datid <> (
                    SELECT
                      oid
                    FROM
                      pg_database
                    WHERE
                      datname = current_database()
                  )
              )
            UNION ALL
            SELECT
              pg_current_xact_id_if_assigned()::text::bigint
          ) open
      )
    ORDER BY
      tx,
      id
    LIMIT
      $2
  )
RETURNING
  tx,
  id

-- EventLogRepository.pruneBatch
UPDATE events_pruned
SET
  tx = $1,
  event_id = $2
WHERE
  id = 1
  AND (
    tx < $3
    OR (
      tx = $4
      AND event_id < $5
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
