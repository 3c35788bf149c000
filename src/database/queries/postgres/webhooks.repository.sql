-- Every statement WebhooksRepository (src/webhooks/webhooks.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
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
  active = $1
ORDER BY
  id

-- WebhooksRepository.advanceFeed
UPDATE webhook_feed
SET
  event_tx = $1,
  event_id = $2
WHERE
  id = 1
RETURNING
  id

-- WebhooksRepository.delete
DELETE FROM webhooks
WHERE
  id = $1
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

-- WebhooksRepository.feedPosition
SELECT
  event_tx,
  event_id
FROM
  webhook_feed
WHERE
  id = 1
FOR UPDATE

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
  id = $1

-- WebhooksRepository.insert
INSERT INTO
  webhooks (url, types, description, secret, active, after_tx, after_id, created_at, updated_at, version)
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, $9, 1)
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
  active = $1,
  after_tx = $2,
  after_id = $3,
  updated_at = $4,
  version = version + 1
WHERE
  id = $5
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
  active = $1,
  updated_at = $2,
  version = version + 1
WHERE
  id = $3
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
  description = $1,
  updated_at = $2,
  version = version + 1
WHERE
  id = $3
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
