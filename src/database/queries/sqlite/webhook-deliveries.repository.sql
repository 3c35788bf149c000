-- Every statement WebhookDeliveriesRepository (src/webhooks/webhook-deliveries.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
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
  webhook_id = ?
ORDER BY
  id DESC
LIMIT
  ?

-- WebhookDeliveriesRepository.claimDue
UPDATE webhook_deliveries
SET
  lease_until = ?
WHERE
  id IN (
    SELECT
      d.id
    FROM
      webhook_deliveries d
      JOIN webhooks w ON w.id = d.webhook_id
    WHERE
      d.status = 'pending'
      AND d.next_attempt_at <= ?
      AND (
        d.lease_until IS NULL
        OR d.lease_until < ?
      )
      AND w.active = ?
    ORDER BY
      d.next_attempt_at
    LIMIT
      ?
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
  id IN (?, ?, ?)

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
        author_id IN (?, ?, ?)
        OR post_id IN (?, ?, ?)
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
      (author_id IN (?, ?, ?))
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
      (comment_id IN (?, ?, ?))
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
      (comment_id IN (?, ?, ?))
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
      (post_id IN (?, ?, ?))
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
      (post_id IN (?, ?, ?))
  )

-- WebhookDeliveriesRepository.insert
INSERT INTO
  webhook_deliveries (webhook_id, event_id, event_cursor, message_id, payload, trace_parent, next_attempt_at, created_at, status, attempts)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?, 'pending', 0)
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
      AND next_attempt_at < ?
    LIMIT
      ?
  )
RETURNING
  id

-- WebhookDeliveriesRepository.record
UPDATE webhook_deliveries
SET
  status = ?,
  attempts = attempts + 1,
  next_attempt_at = ?,
  lease_until = NULL
WHERE
  id = ?
  AND attempts = ?
  AND status = 'pending'
RETURNING
  id

-- WebhookDeliveriesRepository.record
INSERT INTO
  webhook_attempts (delivery_id, webhook_id, event_cursor, attempt, status, http_status, duration_ms, error, at, next_attempt_at)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)

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
      active = ?
  ) AS active
