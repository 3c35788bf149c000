-- Every statement ExternalIdentitiesRepository (src/oidc/external-identities.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- ExternalIdentitiesRepository.advanceRolesIssuedAt
UPDATE external_identities
SET
  roles_issued_at = ?
WHERE
  id = ?
  AND roles_issued_at < ?
RETURNING
  id

-- ExternalIdentitiesRepository.find
SELECT
  e.id,
  e.user_id,
  u.role,
  u.tokens_valid_after,
  e.roles_issued_at,
  e.orphaned_at
FROM
  external_identities e
  LEFT JOIN users u ON u.id = e.user_id
WHERE
  e.issuer = ?
  AND e.subject = ?

-- ExternalIdentitiesRepository.insert
INSERT INTO
  external_identities (issuer, subject, user_id, roles_issued_at, created_at)
VALUES
  (?, ?, ?, ?, ?)
RETURNING
  id

-- ExternalIdentitiesRepository.linkedTo
SELECT
  e.id,
  e.issuer,
  e.subject,
  e.created_at
FROM
  external_identities e
WHERE
  e.user_id = ?
ORDER BY
  e.id

-- ExternalIdentitiesRepository.markOrphaned
UPDATE external_identities
SET
  orphaned_at = ?
WHERE
  id = ?
  AND orphaned_at IS NULL
RETURNING
  id

-- ExternalIdentitiesRepository.relink
UPDATE external_identities
SET
  user_id = ?,
  roles_issued_at = ?,
  orphaned_at = NULL
WHERE
  id = ?
  AND (
    user_id IS NULL
    OR user_id NOT IN (
      SELECT
        id
      FROM
        users
    )
  )
RETURNING
  id
