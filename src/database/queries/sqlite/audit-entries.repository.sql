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
