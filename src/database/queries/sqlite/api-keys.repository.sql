-- Every statement ApiKeysRepository (src/api-keys/api-keys.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- ApiKeysRepository.deleteForUser
DELETE FROM api_keys
WHERE
  id = ?
  AND user_id = ?
RETURNING
  name,
  user_id

-- ApiKeysRepository.findCredential
SELECT
  k.id,
  k.user_id,
  k.scopes,
  k.created_at,
  k.expires_at,
  k.last_used_at,
  u.role,
  u.tokens_valid_after
FROM
  api_keys k
  JOIN users u ON u.id = k.user_id
WHERE
  k.key_hash = ?

-- ApiKeysRepository.insert
INSERT INTO
  api_keys (user_id, name, scopes, expires_at, last_used_at, created_at, updated_at, version, key_hash)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING
  id,
  user_id,
  name,
  scopes,
  expires_at,
  last_used_at,
  created_at,
  updated_at,
  version

-- ApiKeysRepository.listForUser
SELECT
  t.id,
  t.user_id,
  t.name,
  t.scopes,
  t.expires_at,
  t.last_used_at,
  t.created_at,
  t.updated_at,
  t.version
FROM
  api_keys t
  JOIN users u ON u.id = t.user_id
WHERE
  t.user_id = ?
  AND (
    u.tokens_valid_after IS NULL
    OR t.created_at >= u.tokens_valid_after
  )
ORDER BY
  t.id
LIMIT
  1000

-- ApiKeysRepository.touch
UPDATE api_keys
SET
  last_used_at = ?
WHERE
  id = ?
RETURNING
  id
