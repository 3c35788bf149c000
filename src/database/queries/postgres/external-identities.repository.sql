-- Every statement ExternalIdentitiesRepository (src/oidc/external-identities.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- ExternalIdentitiesRepository.advanceRolesIssuedAt
UPDATE external_identities
SET
  roles_issued_at = $1
WHERE
  id = $2
  AND roles_issued_at < $3
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
  e.issuer = $1
  AND e.subject = $2

-- ExternalIdentitiesRepository.insert
INSERT INTO
  external_identities (issuer, subject, user_id, roles_issued_at, created_at)
VALUES
  ($1, $2, $3, $4, $5)
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
  e.user_id = $1
ORDER BY
  e.id

-- ExternalIdentitiesRepository.markOrphaned
UPDATE external_identities
SET
  orphaned_at = $1
WHERE
  id = $2
  AND orphaned_at IS NULL
RETURNING
  id

-- ExternalIdentitiesRepository.relink
UPDATE external_identities
SET
  user_id = $1,
  roles_issued_at = $2,
  orphaned_at = NULL
WHERE
  id = $3
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
