-- Every statement AuditEntriesRepository (src/audit/audit-entries.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
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
  (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)

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
  a.resource_type = ?
ORDER BY
  a.at DESC,
  a.id DESC
LIMIT
  ?

-- AuditEntriesRepository.count
SELECT
  COUNT(*) AS count
FROM
  audit_entries a
WHERE
  a.action = ?

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
    actor_id IN (?, ?, ?)
    AND resource_type IN ('post', 'comment')
  )
  AND id > ?
ORDER BY
  id
LIMIT
  ?

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
    AND resource_id IN (?, ?, ?)
  )
  AND id > ?
ORDER BY
  id
LIMIT
  ?

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
    AND resource_id IN (?, ?, ?)
  )
  AND id > ?
ORDER BY
  id
LIMIT
  ?

-- AuditEntriesRepository.eraseContent
UPDATE audit_entries
SET
  changes = CASE id
    WHEN ? THEN ?
    WHEN ? THEN ?
    WHEN ? THEN ?
    WHEN ? THEN ?
    WHEN ? THEN ?
  END
WHERE
  id IN (?, ?, ?)
RETURNING
  id

-- AuditEntriesRepository.eraseContent
UPDATE audit_entries
SET
  changes = CASE id
    WHEN ? THEN ?
    WHEN ? THEN ?
    WHEN ? THEN ?
    WHEN ? THEN ?
  END
WHERE
  id IN (?, ?, ?)
RETURNING
  id

-- AuditEntriesRepository.eraseContent
UPDATE audit_entries
SET
  changes = CASE id
    WHEN ? THEN ?
  END
WHERE
  id IN (?, ?, ?)
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
    actor_id = ?
    OR (
      resource_type = 'user'
      AND resource_id = ?
    )
    OR (
      action = 'auth.signInFailed'
      AND resource_id IS NULL
      AND LOWER(changes) LIKE ? ESCAPE '\'
    )
  )
  AND id > ?
ORDER BY
  id
LIMIT
  ?

-- AuditEntriesRepository.eraseUser
UPDATE audit_entries
SET
  changes = CASE id
    WHEN ? THEN ?
    WHEN ? THEN ?
  END
WHERE
  id IN (?, ?, ?)
RETURNING
  id

-- AuditEntriesRepository.eraseUser
UPDATE audit_entries
SET
  changes = CASE id
    WHEN ? THEN ?
  END
WHERE
  id IN (?, ?, ?)
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
  a.id = ?

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
  a.action = ?
ORDER BY
  a.at DESC,
  a.id DESC
LIMIT
  ?

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
  a.actor_id = ?
  AND (a.at, a.id) < (?, ?)
ORDER BY
  a.at DESC,
  a.id DESC
LIMIT
  ?

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
  a.actor_id = ?
ORDER BY
  a.at DESC,
  a.id DESC
LIMIT
  ?

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
    a.actor_id = ?
    OR (
      a.resource_type = 'user'
      AND a.resource_id = ?
    )
  )
  AND a.id > ?
ORDER BY
  a.id
LIMIT
  ?

-- AuditEntriesRepository.pruneBatch
DELETE FROM audit_entries
WHERE
  id IN (
    SELECT
      p.id
    FROM
      audit_entries p
    WHERE
      p.at < ?
    ORDER BY
      p.at,
      p.id
    LIMIT
      ?
  )
RETURNING
  id
