-- Every statement UsersRepository (src/users/users.repository.ts) sends on SQLite, as recorded by test/sql-queries.e2e-spec.ts.
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
  author_id = ?

-- UsersRepository.cascade
WITH RECURSIVE
  doomed (id) AS (
    SELECT
      c.id
    FROM
      comments c
      JOIN posts p ON p.id = c.post_id
    WHERE
      c.author_id = ?
      OR p.author_id = ?
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
  role = ?

-- UsersRepository.delete
DELETE FROM users
WHERE
  id = ?
RETURNING
  id

-- UsersRepository.exists
SELECT
  1 AS found
FROM
  users
WHERE
  id = ?

-- UsersRepository.findAccount
SELECT
  id,
  role,
  tokens_valid_after
FROM
  users
WHERE
  id = ?

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
  t.email = ?

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
  t.id = ?

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
  t.id IN (?, ?, ?)

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
  t.email = ?

-- UsersRepository.insert
INSERT INTO
  users (name, email, avatar_url, role, created_at, updated_at, version, password_hash)
VALUES
  (?, ?, ?, ?, ?, ?, ?, ?)
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
  ?

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
  t.id > ?
ORDER BY
  t.id ASC
LIMIT
  ?

-- UsersRepository.passwordOf
SELECT
  email,
  password_hash
FROM
  users
WHERE
  id = ?

-- UsersRepository.revokeTokens
UPDATE users
SET
  tokens_valid_after = ?
WHERE
  id = ?
RETURNING
  id

-- UsersRepository.update
UPDATE users
SET
  role = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  avatar_url = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
  AND version = ?
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
  avatar_url = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  name = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  password_hash = ?,
  tokens_valid_after = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
  role = ?,
  updated_at = ?,
  version = version + 1
WHERE
  id = ?
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
