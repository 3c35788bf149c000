-- Every statement WebhookDeliveriesRepository (src/webhooks/webhook-deliveries.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- WebhookDeliveriesRepository.attempts
SELECT
  event_cursor,
  attempt,
  status,
  duration_ms,
  error,
  at,
  next_attempt_at
FROM
  webhook_attempts
WHERE
  webhook_id = $1
ORDER BY
  id DESC
LIMIT
  $2

-- WebhookDeliveriesRepository.claimDue
UPDATE webhook_deliveries
SET
  lease_until = $1
WHERE
  id IN (
    SELECT
      d.id
    FROM
      webhook_deliveries d
      JOIN webhooks w ON w.id = d.webhook_id
    WHERE
      d.status = 'pending'
      AND d.next_attempt_at <= $2
      AND (
        d.lease_until IS NULL
        OR d.lease_until < $3
      )
      AND w.active = $4
    ORDER BY
      d.next_attempt_at
    LIMIT
      $5
    FOR UPDATE OF
      d SKIP LOCKED
  )
RETURNING
  id,
  webhook_id,
  event_cursor,
  message_id,
  payload,
  attempts,
  trace_parent

-- WebhookDeliveriesRepository.claimDue
SELECT
  id,
  url,
  secret
FROM
  webhooks
WHERE
  id IN ($1, $2, $3)

-- WebhookDeliveriesRepository.eraseContent
SELECT
  id,
  payload
FROM
  webhook_deliveries
WHERE
  event_id IN (
    SELECT
      id
    FROM
      events
    WHERE
      (
        author_id IN ($1, $2, $3)
        OR post_id IN ($4, $5, $6)
      )
  )

-- WebhookDeliveriesRepository.eraseContent
SELECT
  id,
  payload
FROM
  webhook_deliveries
WHERE
  event_id IN (
    SELECT
      id
    FROM
      events
    WHERE
      (author_id IN ($1, $2, $3))
  )

-- WebhookDeliveriesRepository.eraseContent
SELECT
  id,
  payload
FROM
  webhook_deliveries
WHERE
  event_id IN (
    SELECT
      id
    FROM
      events
    WHERE
      (comment_id IN ($1, $2, $3))
      AND audience IN ('public')
  )

-- WebhookDeliveriesRepository.eraseContent
SELECT
  id,
  payload
FROM
  webhook_deliveries
WHERE
  event_id IN (
    SELECT
      id
    FROM
      events
    WHERE
      (comment_id IN ($1, $2, $3))
  )

-- WebhookDeliveriesRepository.eraseContent
SELECT
  id,
  payload
FROM
  webhook_deliveries
WHERE
  event_id IN (
    SELECT
      id
    FROM
      events
    WHERE
      (post_id IN ($1, $2, $3))
      AND audience IN ('moderated', 'public')
  )

-- WebhookDeliveriesRepository.eraseContent
SELECT
  id,
  payload
FROM
  webhook_deliveries
WHERE
  event_id IN (
    SELECT
      id
    FROM
      events
    WHERE
      (post_id IN ($1, $2, $3))
  )

-- WebhookDeliveriesRepository.insert
INSERT INTO
  webhook_deliveries (webhook_id, event_id, event_cursor, message_id, payload, trace_parent, next_attempt_at, created_at, status, attempts)
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, 'pending', 0)
ON CONFLICT (webhook_id, event_id) DO NOTHING

-- WebhookDeliveriesRepository.pruneBatch
DELETE FROM webhook_deliveries
WHERE
  id IN (
    SELECT
      id
    FROM
      webhook_deliveries
    WHERE
      status IN ('delivered', 'failed')
      AND next_attempt_at < $1
    LIMIT
      $2
  )
RETURNING
  id

-- WebhookDeliveriesRepository.record
UPDATE webhook_deliveries
SET
  status = $1,
  attempts = attempts + 1,
  next_attempt_at = $2,
  lease_until = NULL
WHERE
  id = $3
  AND attempts = $4
  AND status = 'pending'
RETURNING
  id

-- WebhookDeliveriesRepository.record
INSERT INTO
  webhook_attempts (delivery_id, webhook_id, event_cursor, attempt, status, http_status, duration_ms, error, at, next_attempt_at)
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)

-- WebhookDeliveriesRepository.workload
SELECT
  (
    SELECT
      COUNT(*)
    FROM
      webhook_deliveries
    WHERE
      status = 'pending'
  ) AS pending,
  (
    SELECT
      COUNT(*)
    FROM
      webhooks
    WHERE
      active = $1
  ) AS active
