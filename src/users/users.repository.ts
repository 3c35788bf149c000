import { Injectable } from '@nestjs/common';
import type { CommentStatus, PostStatus } from '../auth/read-policy.js';
import { ResourceRepository } from '../common/persistence/resource-repository.js';
import type { Account, AccountLookup } from '../auth/account-lookup.js';
import { toDate } from '../common/persistence/entity-table.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import { User, type UserRole } from './user.entity.js';

/** What deleting a user takes with it (the foreign keys cascade), for the deletion events. */
export interface UserCascade {
  /** With each post's status: the audience of its deletion event. */
  posts: { id: number; authorId: number; status: PostStatus }[];
  /** With the status and author of each comment's post: the audience of its deletion event. */
  comments: { id: number; postId: number; authorId: number; status: CommentStatus; post: { status: PostStatus; authorId: number } }[];
}

@Injectable()
export class UsersRepository extends ResourceRepository<User> implements AccountLookup {
  private readonly lockClause: Fragment;

  constructor(db: Sql) {
    super(db, User);
    this.lockClause = sql.raw(db.dialect.lockRows());
  }

  /** Users' reads record nothing: every write of a user drops every cached answer. */
  protected override recordReads(): void {}

  /** For sign-in only: the one read that loads the password hash. */
  async findWithPasswordHash(email: string): Promise<User | null> {
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select}, t.password_hash FROM ${this.from} WHERE t.email = ${email}`);
    if (!row) return null;
    const user = this.table.fromRow(row);
    user.passwordHash = row.password_hash as string;
    return user;
  }

  /** What a credential check needs: the role and the revocation stamp. */
  async findAccount(id: number): Promise<Account | null> {
    const [row] = await this.sql.rows<{ id: number; role: UserRole; tokens_valid_after: unknown }>(sql`SELECT id, role, tokens_valid_after FROM users WHERE id = ${id}`);
    if (!row) return null;
    return { id: row.id, role: row.role, tokensValidAfter: row.tokens_valid_after == null ? null : toDate(row.tokens_valid_after) };
  }

  /** Refuses every token issued so far; no new version (the representation does not change). */
  async revokeTokens(id: number, at: Date, executor?: Executor): Promise<boolean> {
    return (await this.sql.written(sql`UPDATE users SET tokens_valid_after = ${this.sql.timestamp(at)} WHERE id = ${id} RETURNING id`, executor)).length > 0;
  }

  /** The admins, locked until the transaction ends on PostgreSQL (SQLite has one writer), so two demotions cannot both see another admin. */
  async lockAdmins(executor: Executor): Promise<number[]> {
    return (await this.sql.rows<{ id: number }>(sql`SELECT id FROM users WHERE role = 'admin' ORDER BY id${this.lockClause}`, executor)).map((row) => row.id);
  }

  /** For checking a `currentPassword`: the hash, and the e-mail the sign-in limits count it under. */
  async passwordOf(id: number): Promise<{ email: string; passwordHash: string } | null> {
    const [row] = await this.sql.rows<{ email: string; password_hash: string }>(sql`SELECT email, password_hash FROM users WHERE id = ${id}`);
    return row ? { email: row.email, passwordHash: row.password_hash } : null;
  }

  async findByEmail(email: string, executor?: Executor): Promise<User | null> {
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select} FROM ${this.from} WHERE t.email = ${email}`, executor);
    return row ? this.table.fromRow(row) : null;
  }

  async countWithRole(role: UserRole, executor?: Executor): Promise<number> {
    const [row] = await this.sql.rows<{ count: number | string }>(sql`SELECT COUNT(*) AS count FROM ${this.tableName} WHERE role = ${role}`, executor);
    return Number(row.count);
  }

  async cascade(id: number, executor: Executor): Promise<UserCascade> {
    const postRows = await this.sql.rows<{ id: number; author_id: number; status: PostStatus }>(sql`SELECT id, author_id, status FROM posts WHERE author_id = ${id}`, executor);
    // Their comments, the comments on their posts, and (by the parent_id cascade) every reply under those.
    const comments = sql`WITH RECURSIVE doomed(id) AS (SELECT c.id FROM comments c JOIN posts p ON p.id = c.post_id WHERE c.author_id = ${id} OR p.author_id = ${id} UNION SELECT c.id FROM comments c JOIN doomed d ON c.parent_id = d.id) SELECT c.id, c.post_id, c.author_id, c.status, p.status AS post_status, p.author_id AS post_author_id FROM comments c JOIN posts p ON p.id = c.post_id WHERE c.id IN (SELECT id FROM doomed)`;
    const commentRows = await this.sql.rows<{ id: number; post_id: number; author_id: number; status: CommentStatus; post_status: PostStatus; post_author_id: number }>(comments, executor);
    return {
      posts: postRows.map((row) => ({ id: row.id, authorId: row.author_id, status: row.status })),
      comments: commentRows.map((row) => ({
        id: row.id,
        postId: row.post_id,
        authorId: row.author_id,
        status: row.status,
        post: { status: row.post_status, authorId: row.post_author_id },
      })),
    };
  }
}
