-- Every statement UsersRepository (src/users/users.repository.ts) sends on PostgreSQL, as recorded by test/sql-queries.e2e-spec.ts.
-- Generated: change the repository, then UPDATE_SQL_FILES=1 npx vitest run test/sql-queries.e2e-spec.ts
-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.

-- UsersRepository.cascade
SELECT
  id,
  author_id,
  status
FROM
  posts
WHERE
  author_id = $1

-- UsersRepository.cascade
WITH RECURSIVE
  doomed (id) AS (
    SELECT
      c.id
    FROM
      comments c
      JOIN posts p ON p.id = c.post_id
    WHERE
      c.author_id = $1
      OR p.author_id = $2
    UNION
    SELECT
      c.id
    FROM
      comments c
      JOIN doomed d ON c.parent_id = d.id
  )
SELECT
  c.id,
  c.post_id,
  c.author_id,
  c.status,
  p.status AS post_status,
  p.author_id AS post_author_id
FROM
  comments c
  JOIN posts p ON p.id = c.post_id
WHERE
  c.id IN (
    SELECT
      id
    FROM
      doomed
  )

-- UsersRepository.count
SELECT
  COUNT(*) AS count
FROM
  users

-- UsersRepository.countWithRole
SELECT
  COUNT(*) AS count
FROM
  users
WHERE
  role = $1

-- UsersRepository.delete
DELETE FROM users
WHERE
  id = $1
RETURNING
  id

-- UsersRepository.exists
SELECT
  1 AS found
FROM
  users
WHERE
  id = $1

-- UsersRepository.findAccount
SELECT
  id,
  role,
  tokens_valid_after
FROM
  users
WHERE
  id = $1

-- UsersRepository.findByEmail
SELECT
  t.id,
  t.name,
  t.email,
  t.avatar_url,
  t.role,
  t.comments_blocked,
  t.created_at,
  t.updated_at,
  t.version
FROM
  users t
WHERE
  t.email = $1

-- UsersRepository.findById
SELECT
  t.id,
  t.name,
  t.email,
  t.avatar_url,
  t.role,
  t.comments_blocked,
  t.created_at,
  t.updated_at,
  t.version
FROM
  users t
WHERE
  t.id = $1

-- UsersRepository.findByIds
SELECT
  t.id,
  t.name,
  t.email,
  t.avatar_url,
  t.role,
  t.comments_blocked,
  t.created_at,
  t.updated_at,
  t.version
FROM
  users t
WHERE
  t.id IN ($1, $2, $3)

-- UsersRepository.findWithPasswordHash
SELECT
  t.id,
  t.name,
  t.email,
  t.avatar_url,
  t.role,
  t.comments_blocked,
  t.created_at,
  t.updated_at,
  t.version,
  t.password_hash
FROM
  users t
WHERE
  t.email = $1

-- UsersRepository.insert
INSERT INTO
  users (name, email, avatar_url, role, created_at, updated_at, version, password_hash)
VALUES
  ($1, $2, $3, $4, $5, $6, $7, $8)
RETURNING
  id,
  name,
  email,
  avatar_url,
  role,
  comments_blocked,
  created_at,
  updated_at,
  version

-- UsersRepository.lockAdmins
SELECT
  id
FROM
  users
WHERE
  role = 'admin'
ORDER BY
  id
FOR UPDATE

-- UsersRepository.page
SELECT
  t.id,
  t.name,
  t.email,
  t.avatar_url,
  t.role,
  t.comments_blocked,
  t.created_at,
  t.updated_at,
  t.version
FROM
  users t
ORDER BY
  t.id ASC
LIMIT
  $1

-- UsersRepository.page
SELECT
  t.id,
  t.name,
  t.email,
  t.avatar_url,
  t.role,
  t.comments_blocked,
  t.created_at,
  t.updated_at,
  t.version
FROM
  users t
WHERE
  t.id > $1
ORDER BY
  t.id ASC
LIMIT
  $2

-- UsersRepository.passwordOf
SELECT
  email,
  password_hash
FROM
  users
WHERE
  id = $1

-- UsersRepository.revokeTokens
UPDATE users
SET
  tokens_valid_after = $1
WHERE
  id = $2
RETURNING
  id

-- UsersRepository.update
UPDATE users
SET role = $1,
updated_at = $2,
version = version + 1
WHERE
  id = $3
RETURNING
  id,
  name,
  email,
  avatar_url,
  role,
  comments_blocked,
  created_at,
  updated_at,
  version

-- UsersRepository.updateVersioned
UPDATE users
SET
  avatar_url = $1,
  updated_at = $2,
  version = version + 1
WHERE
  id = $3
  AND version = $4
RETURNING
  id,
  name,
  email,
  avatar_url,
  role,
  comments_blocked,
  created_at,
  updated_at,
  version

-- UsersRepository.updateVersioned
UPDATE users
SET
  avatar_url = $1,
  updated_at = $2,
  version = version + 1
WHERE
  id = $3
RETURNING
  id,
  name,
  email,
  avatar_url,
  role,
  comments_blocked,
  created_at,
  updated_at,
  version

-- UsersRepository.updateVersioned
UPDATE users
SET
  name = $1,
  updated_at = $2,
  version = version + 1
WHERE
  id = $3
RETURNING
  id,
  name,
  email,
  avatar_url,
  role,
  comments_blocked,
  created_at,
  updated_at,
  version

-- UsersRepository.updateVersioned
UPDATE users
SET
  password_hash = $1,
  tokens_valid_after = $2,
  updated_at = $3,
  version = version + 1
WHERE
  id = $4
RETURNING
  id,
  name,
  email,
  avatar_url,
  role,
  comments_blocked,
  created_at,
  updated_at,
  version

-- UsersRepository.updateVersioned
UPDATE users
SET role = $1,
updated_at = $2,
version = version + 1
WHERE
  id = $3
RETURNING
  id,
  name,
  email,
  avatar_url,
  role,
  comments_blocked,
  created_at,
  updated_at,
  version
