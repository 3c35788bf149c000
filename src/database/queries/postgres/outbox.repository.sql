-- Every statement OutboxRepository (src/events/outbox.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- OutboxRepository.after
SELECT
  id,
  tx,
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
FROM
  events
WHERE
  (tx, id) > ($1, $2)
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
  AND (audience IN ('public'))
ORDER BY
  tx,
  id
LIMIT
  $3

-- OutboxRepository.after
SELECT
  id,
  tx,
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
FROM
  events
WHERE
  (tx, id) > ($1, $2)
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
  AND type IN ($3, $4, $5)
  AND (audience IN ('public'))
ORDER BY
  tx,
  id
LIMIT
  $6

-- OutboxRepository.after
SELECT
  id,
  tx,
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
FROM
  events
WHERE
  (tx, id) > ($1, $2)
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
  AND type IN ($3, $4, $5)
  AND post_id = $6
  AND author_id = $7
  AND (audience IN ('public'))
ORDER BY
  tx,
  id
LIMIT
  $8

-- OutboxRepository.after
SELECT
  id,
  tx,
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
FROM
  events
WHERE
  (tx, id) > ($1, $2)
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
  $3

-- OutboxRepository.append
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
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
RETURNING
  id,
  tx

-- OutboxRepository.at
SELECT
  id,
  tx,
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
FROM
  events
WHERE
  id = $1
  AND tx = $2
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
  AND (audience IN ('public'))
ORDER BY
  tx,
  id
LIMIT
  $3

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (
    author_id IN ($1, $2, $3)
    OR post_id IN ($4, $5, $6)
  )

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (author_id IN ($1, $2, $3))

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (comment_id IN ($1, $2, $3))

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (comment_id IN ($1, $2, $3))
  AND audience IN ('public')

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (post_id IN ($1, $2, $3))

-- OutboxRepository.erase
UPDATE events
SET
  resource = NULL
WHERE
  resource IS NOT NULL
  AND (post_id IN ($1, $2, $3))
  AND audience IN ('moderated', 'public')

-- OutboxRepository.heldBack
SELECT
  COUNT(*) AS held,
  MIN(occurred_at) AS oldest
FROM
  events
WHERE
  (tx, id) > ($1, $2)
  AND NOT (
    tx < (
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
  )

-- OutboxRepository.latest
SELECT
  id,
  tx,
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
FROM
  events
WHERE
  tx < (
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
  tx DESC,
  id DESC
LIMIT
  1

-- OutboxRepository.notify
SELECT
  pg_notify ($1, $2)
