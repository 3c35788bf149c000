-- Every statement WebhooksRepository (src/webhooks/webhooks.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- WebhooksRepository.active
SELECT
  id,
  url,
  types,
  description,
  active,
  after_tx,
  after_id,
  created_at,
  updated_at
FROM
  webhooks
WHERE
  active = ?
ORDER BY
  id

-- WebhooksRepository.advanceFeed
UPDATE webhook_feed
SET
  event_tx = ?,
  event_id = ?
WHERE
  id = 1
RETURNING
  id

-- WebhooksRepository.delete
DELETE FROM webhooks
WHERE
  id = ?
RETURNING
  id

-- WebhooksRepository.feedPosition
SELECT
  event_tx,
  event_id
FROM
  webhook_feed
WHERE
  id = 1

-- WebhooksRepository.findById
SELECT
  id,
  url,
  types,
  description,
  active,
  after_tx,
  after_id,
  created_at,
  updated_at
FROM
  webhooks
WHERE
  id = ?

-- WebhooksRepository.insert
INSERT INTO
  webhooks (url, types, description, secret, active, after_tx, after_id, created_at, updated_at, version)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?, ?, 1)
RETURNING
  id,
  url,
  types,
  description,
  active,
  after_tx,
  after_id,
  created_at,
  updated_at

-- WebhooksRepository.list
SELECT
  id,
  url,
  types,
  description,
  active,
  after_tx,
  after_id,
  created_at,
  updated_at
FROM
  webhooks
ORDER BY
  id

-- WebhooksRepository.update
UPDATE webhooks
SET
  active = ?,
  after_tx = ?,
  after_id = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
RETURNING
  id,
  url,
  types,
  description,
  active,
  after_tx,
  after_id,
  created_at,
  updated_at

-- WebhooksRepository.update
UPDATE webhooks
SET
  active = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
RETURNING
  id,
  url,
  types,
  description,
  active,
  after_tx,
  after_id,
  created_at,
  updated_at

-- WebhooksRepository.update
UPDATE webhooks
SET
  description = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
RETURNING
  id,
  url,
  types,
  description,
  active,
  after_tx,
  after_id,
  created_at,
  updated_at
