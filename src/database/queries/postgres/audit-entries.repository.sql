-- Every statement AuditEntriesRepository (src/audit/audit-entries.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- AuditEntriesRepository.append
INSERT INTO
  audit_entries (
    at,
    actor_id,
    actor_credential,
    actor_key_id,
    action,
    resource_type,
    resource_id,
    changes,
    ip,
    user_agent,
    request_id,
    trace_id
  )
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)

-- AuditEntriesRepository.batch
SELECT
  a.id,
  a.at,
  a.actor_id,
  a.actor_credential,
  a.actor_key_id,
  a.action,
  a.resource_type,
  a.resource_id,
  a.changes,
  a.ip,
  a.user_agent,
  a.request_id,
  a.trace_id
FROM
  audit_entries a
WHERE
  a.resource_type = $1
ORDER BY
  a.at DESC,
  a.id DESC
LIMIT
  $2

-- AuditEntriesRepository.count
SELECT
  COUNT(*) AS count
FROM
  audit_entries a
WHERE
  a.action = $1

-- AuditEntriesRepository.eraseContent
SELECT
  id,
  actor_id,
  resource_type,
  resource_id,
  changes
FROM
  audit_entries
WHERE
  (
    actor_id IN ($1, $2, $3)
    AND resource_type IN ('post', 'comment')
  )
  AND id > $4
ORDER BY
  id
LIMIT
  $5

-- AuditEntriesRepository.eraseContent
SELECT
  id,
  actor_id,
  resource_type,
  resource_id,
  changes
FROM
  audit_entries
WHERE
  (
    resource_type = 'comment'
    AND resource_id IN ($1, $2, $3)
  )
  AND id > $4
ORDER BY
  id
LIMIT
  $5

-- AuditEntriesRepository.eraseContent
SELECT
  id,
  actor_id,
  resource_type,
  resource_id,
  changes
FROM
  audit_entries
WHERE
  (
    resource_type = 'post'
    AND resource_id IN ($1, $2, $3)
  )
  AND id > $4
ORDER BY
  id
LIMIT
  $5

-- AuditEntriesRepository.eraseContent
UPDATE audit_entries
SET
  changes = CASE id
    WHEN $1 THEN $2
    WHEN $3 THEN $4
    WHEN $5 THEN $6
    WHEN $7 THEN $8
    WHEN $9 THEN $10
  END
WHERE
  id IN ($11, $12, $13)
RETURNING
  id

-- AuditEntriesRepository.eraseContent
UPDATE audit_entries
SET
  changes = CASE id
    WHEN $1 THEN $2
    WHEN $3 THEN $4
    WHEN $5 THEN $6
    WHEN $7 THEN $8
  END
WHERE
  id IN ($9, $10, $11)
RETURNING
  id

-- AuditEntriesRepository.eraseContent
UPDATE audit_entries
SET
  changes = CASE id
    WHEN $1 THEN $2
  END
WHERE
  id IN ($3, $4, $5)
RETURNING
  id

-- AuditEntriesRepository.eraseUser
SELECT
  id,
  actor_id,
  resource_type,
  resource_id,
  changes
FROM
  audit_entries
WHERE
  (
    actor_id = $1
    OR (
      resource_type = 'user'
      AND resource_id = $2
    )
    OR (
      action = 'auth.signInFailed'
      AND resource_id IS NULL
      AND LOWER(changes) LIKE $3 ESCAPE '\'
    )
  )
  AND id > $4
ORDER BY
  id
LIMIT
  $5

-- AuditEntriesRepository.eraseUser
UPDATE audit_entries
SET
  changes = CASE id
    WHEN $1 THEN $2
    WHEN $3 THEN $4
  END
WHERE
  id IN ($5, $6, $7)
RETURNING
  id

-- AuditEntriesRepository.eraseUser
UPDATE audit_entries
SET
  changes = CASE id
    WHEN $1 THEN $2
  END
WHERE
  id IN ($3, $4, $5)
RETURNING
  id

-- AuditEntriesRepository.find
SELECT
  a.id,
  a.at,
  a.actor_id,
  a.actor_credential,
  a.actor_key_id,
  a.action,
  a.resource_type,
  a.resource_id,
  a.changes,
  a.ip,
  a.user_agent,
  a.request_id,
  a.trace_id
FROM
  audit_entries a
WHERE
  a.id = $1

-- AuditEntriesRepository.page
SELECT
  a.id,
  a.at,
  a.actor_id,
  a.actor_credential,
  a.actor_key_id,
  a.action,
  a.resource_type,
  a.resource_id,
  a.changes,
  a.ip,
  a.user_agent,
  a.request_id,
  a.trace_id
FROM
  audit_entries a
WHERE
  a.action = $1
ORDER BY
  a.at DESC,
  a.id DESC
LIMIT
  $2

-- AuditEntriesRepository.page
SELECT
  a.id,
  a.at,
  a.actor_id,
  a.actor_credential,
  a.actor_key_id,
  a.action,
  a.resource_type,
  a.resource_id,
  a.changes,
  a.ip,
  a.user_agent,
  a.request_id,
  a.trace_id
FROM
  audit_entries a
WHERE
  a.actor_id = $1
  AND (a.at, a.id) < ($2, $3)
ORDER BY
  a.at DESC,
  a.id DESC
LIMIT
  $4

-- AuditEntriesRepository.page
SELECT
  a.id,
  a.at,
  a.actor_id,
  a.actor_credential,
  a.actor_key_id,
  a.action,
  a.resource_type,
  a.resource_id,
  a.changes,
  a.ip,
  a.user_agent,
  a.request_id,
  a.trace_id
FROM
  audit_entries a
WHERE
  a.actor_id = $1
ORDER BY
  a.at DESC,
  a.id DESC
LIMIT
  $2

-- AuditEntriesRepository.pageOfUser
SELECT
  a.id,
  a.at,
  a.actor_id,
  a.actor_credential,
  a.actor_key_id,
  a.action,
  a.resource_type,
  a.resource_id,
  a.changes,
  a.ip,
  a.user_agent,
  a.request_id,
  a.trace_id
FROM
  audit_entries a
WHERE
  (
    a.actor_id = $1
    OR (
      a.resource_type = 'user'
      AND a.resource_id = $2
    )
  )
  AND a.id > $3
ORDER BY
  a.id
LIMIT
  $4

-- AuditEntriesRepository.pruneBatch
DELETE FROM audit_entries
WHERE
  id IN (
    SELECT
      p.id
    FROM
      audit_entries p
    WHERE
      p.at < $1
    ORDER BY
      p.at,
      p.id
    LIMIT
      $2
  )
RETURNING
  id
