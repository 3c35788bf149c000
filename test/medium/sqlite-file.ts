import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { Comment } from '../../src/comments/comment.entity.js';
import type { ReadRouter } from '../../src/common/persistence/read-router.js';
import { Sql } from '../../src/common/persistence/sql.js';
import type { AppConfig } from '../../src/config/app-config.js';
import { buildDataSourceOptions } from '../../src/database/data-source-options.js';
import { runMigrations } from '../../src/database/migration-runner.js';
import { SqliteDialect } from '../../src/database/sqlite.dialect.js';
import { PostRevision } from '../../src/posts/post-revision.entity.js';
import { Post } from '../../src/posts/post.entity.js';
import { PostsRepository } from '../../src/posts/posts.repository.js';
import { Tag } from '../../src/tags/tag.entity.js';
import { TagsRepository } from '../../src/tags/tags.repository.js';
import { User } from '../../src/users/user.entity.js';
import { UsersRepository } from '../../src/users/users.repository.js';

/**
 * The middle tier: repositories on a real SQLite file, migrated, without Nest. The data source,
 * the dialect, `Sql` and the repositories are made here by hand, as the modules would make them.
 */
export interface SqliteFile {
  dataSource: DataSource;
  sql: Sql;
  users: UsersRepository;
  posts: PostsRepository;
  tags: TagsRepository;
  close(): Promise<void>;
}

/** No read replicas: every read goes to the file. */
const NO_REPLICAS = { enabled: false, read: () => Promise.reject(new Error('no replicas')) } as unknown as ReadRouter;

export async function openSqliteFile(): Promise<SqliteFile> {
  const dir = mkdtempSync(join(tmpdir(), 'blog-medium-'));
  const options = buildDataSourceOptions({ type: 'sqlite', url: join(dir, 'blog.sqlite') });
  const dataSource = await new DataSource({ ...options, entities: [User, Post, Tag, Comment, PostRevision] }).initialize();
  await runMigrations(dataSource);
  const sql = new Sql(dataSource, new SqliteDialect(dataSource), NO_REPLICAS);
  const users = new UsersRepository(sql);
  const config = { searchTimeoutMs: 0, supportedLocales: ['en'] } as unknown as AppConfig;
  return {
    dataSource,
    sql,
    users,
    posts: new PostsRepository(sql, users, config),
    tags: new TagsRepository(sql),
    close: async () => {
      await dataSource.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let serial = 0;

/** A user with a unique e-mail. */
export function newUser(db: SqliteFile, values: Partial<User> = {}): Promise<User> {
  serial += 1;
  return db.users.insert({ name: `User ${serial}`, email: `user${serial}@example.com`, passwordHash: 'x', role: 'author', avatarUrl: null, commentsBlocked: false, ...values });
}
