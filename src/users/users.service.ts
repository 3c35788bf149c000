import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Actor } from '../auth/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { hashPassword } from '../auth/password-hasher.js';
import { DomainError } from '../common/errors/domain-error.js';
import { normalizeError } from '../common/errors/normalize-error.js';
import { type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { Sql } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { updateVersioned, type WriteOptions } from '../common/persistence/versioned-update.js';
import type { CreateUserDto } from './dto/create-user.dto.js';
import type { UpdateUserDto } from './dto/update-user.dto.js';
import { Comment } from '../comments/comment.entity.js';
import { Post } from '../posts/post.entity.js';
import { event } from '../subscriptions/blog-events.js';
import { EventPublisher } from '../subscriptions/event-publisher.js';
import { User, type UserRole } from './user.entity.js';
import { USER_COLUMNS, userFromRow, type UserRow } from './user.rows.js';

@Injectable()
export class UsersService {
  constructor(
    @InjectRepository(User) private readonly users: Repository<User>,
    private readonly policy: AuthorizationPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly sql: Sql,
  ) {
    this.byIdStatement = sql.statement(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = $1`);
    this.listStatements = ['', 'WHERE u.id > $1 '].map((where) =>
      sql.statement(`SELECT ${USER_COLUMNS} FROM users u ${where}ORDER BY u.id LIMIT $${where ? 2 : 1}`),
    );
  }

  private readonly byIdStatement: string;
  private readonly listStatements: string[];

  async create(input: CreateUserDto, role: UserRole = 'author'): Promise<User> {
    const now = new Date();
    const user = this.users.create({
      name: input.name,
      email: input.email.toLowerCase(),
      passwordHash: await hashPassword(input.password),
      avatarUrl: input.avatarUrl ?? null,
      role,
      createdAt: now,
      updatedAt: now,
    });
    try {
      return await this.transactions.run((manager) => manager.save(user));
    } catch (error) {
      throw this.conflictOnDuplicateEmail(error);
    }
  }

  async list(page: PageRequest): Promise<Page<User>> {
    const rows =
      page.after === undefined
        ? await this.sql.rows<UserRow>(this.listStatements[0], [page.limit + 1])
        : await this.sql.rows<UserRow>(this.listStatements[1], [page.after, page.limit + 1]);
    return toPage(rows.map(userFromRow), page.limit);
  }

  async findById(id: number): Promise<User | null> {
    const [row] = await this.sql.rows<UserRow>(this.byIdStatement, [id]);
    return row ? userFromRow(row) : null;
  }

  /** For batching: the users with these ids, in no particular order. */
  async findByIds(ids: readonly number[]): Promise<User[]> {
    if (ids.length === 0) return [];
    const placeholders = ids.map((_, index) => `$${index + 1}`).join(', ');
    const rows = await this.sql.rows<UserRow>(this.sql.statement(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id IN (${placeholders})`), ids);
    return rows.map(userFromRow);
  }

  async get(id: number): Promise<User> {
    const user = await this.findById(id);
    if (!user) throw DomainError.notFound('User', id);
    return user;
  }

  /** For sign-in only: the one read that loads the password hash. */
  async findWithPasswordHash(email: string): Promise<User | null> {
    return this.users
      .createQueryBuilder('user')
      .addSelect('user.passwordHash')
      .where('user.email = :email', { email: email.toLowerCase() })
      .getOne();
  }

  async update(id: number, input: UpdateUserDto, actor: Actor | null, options: WriteOptions = {}): Promise<User> {
    this.policy.assertCanModifyUser(actor, id);
    if (input.role !== undefined) this.policy.assertAdminFor(actor, 'role');
    const changes: Partial<User> = {};
    if (input.name !== undefined) changes.name = input.name;
    if (input.avatarUrl !== undefined) changes.avatarUrl = input.avatarUrl;
    if (input.role !== undefined) changes.role = input.role;
    if (input.password !== undefined) changes.passwordHash = await hashPassword(input.password);

    const updated = await this.transactions.run(async (manager) => {
      const current = await manager.findOneBy(User, { id });
      if (!current) throw DomainError.notFound('User', id);
      return updateVersioned(manager, User, current, changes, options.expectedVersion);
    });
    if (changes.role !== undefined || changes.passwordHash !== undefined) this.events.credentialsChanged(id);
    return updated;
  }

  /** Deletes the user with their posts and comments, and announces every deletion. */
  async delete(id: number, actor: Actor | null): Promise<void> {
    this.policy.assertCanModifyUser(actor, id);
    const { posts, comments } = await this.transactions.run(async (manager) => {
      if (!(await manager.existsBy(User, { id }))) throw DomainError.notFound('User', id);
      const ownPosts = await manager.find(Post, { select: { id: true, authorId: true }, where: { authorId: id } });
      const cascaded = await manager
        .createQueryBuilder(Comment, 'comment')
        .select(['comment.id', 'comment.postId', 'comment.authorId'])
        .leftJoin(Post, 'post', 'post.id = comment.postId')
        .where('comment.authorId = :id OR post.authorId = :id', { id })
        .getMany();
      // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
      if ((await manager.delete(User, { id })).affected === 0) throw DomainError.notFound('User', id);
      return { posts: ownPosts, comments: cascaded };
    });
    this.events.credentialsChanged(id);
    this.events.publish(
      ...comments.map((c) => event('commentDeleted', { id: c.id, postId: c.postId, authorId: c.authorId })),
      ...posts.map((p) => event('postDeleted', { id: p.id, authorId: p.authorId })),
    );
  }

  async count(where: Partial<Pick<User, 'role'>> = {}): Promise<number> {
    return this.users.countBy(where);
  }

  private conflictOnDuplicateEmail(error: unknown): unknown {
    if (normalizeError(error).code === 'CONFLICT') {
      return DomainError.conflict('A user with this e-mail address already exists');
    }
    return error;
  }
}

