import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Repository } from 'typeorm';
import type { Actor } from '../auth/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { Comment } from '../comments/comment.entity.js';
import { DomainError } from '../common/errors/domain-error.js';
import { isForeignKeyViolation } from '../common/errors/normalize-error.js';
import { type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { Sql } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { updateVersioned, type WriteOptions } from '../common/persistence/versioned-update.js';
import { event } from '../subscriptions/blog-events.js';
import { EventPublisher } from '../subscriptions/event-publisher.js';
import { User } from '../users/user.entity.js';
import type { CreatePostDto } from './dto/create-post.dto.js';
import type { UpdatePostDto } from './dto/update-post.dto.js';
import { Post } from './post.entity.js';
import { POST_COLUMNS, postFromRow, type PostRow } from './post.rows.js';

export interface PostListRequest extends PageRequest {
  authorId?: number;
}

@Injectable()
export class PostsService {
  constructor(
    @InjectRepository(Post) private readonly posts: Repository<Post>,
    private readonly policy: AuthorizationPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly sql: Sql,
  ) {
    this.byIdStatement = sql.statement(`SELECT ${POST_COLUMNS} FROM posts p WHERE p.id = $1`);
    this.insertStatement = sql.statement(
      `INSERT INTO posts (title, body, author_id, created_at, updated_at, version) VALUES ($1, $2, $3, $4, $5, 1) RETURNING ${POST_COLUMNS.replaceAll('p.', '')}`,
    );
    // [no filter, after, authorId, authorId + after]: newest first on the primary key or (author_id, id).
    this.listStatements = ['', 'p.id < $1', 'p.author_id = $1', 'p.author_id = $1 AND p.id < $2'].map((where) => {
      const limit = `$${where.split('$').length}`;
      return sql.statement(`SELECT ${POST_COLUMNS} FROM posts p ${where ? `WHERE ${where} ` : ''}ORDER BY p.id DESC LIMIT ${limit}`);
    });
  }

  private readonly byIdStatement: string;
  private readonly insertStatement: string;
  private readonly listStatements: string[];

  /** Newest first, keyset-paged on the primary key (or on (author_id, id) with authorId). */
  async list(request: PostListRequest): Promise<Page<Post>> {
    const params: number[] = [];
    if (request.authorId !== undefined) params.push(request.authorId);
    if (request.after !== undefined) params.push(request.after);
    params.push(request.limit + 1);
    const statement = this.listStatements[(request.authorId !== undefined ? 2 : 0) + (request.after !== undefined ? 1 : 0)];
    const rows = await this.sql.rows<PostRow>(statement, params);
    return toPage(rows.map(postFromRow), request.limit);
  }

  /** A user's posts, newest first; 404 when the user does not exist. */
  async listForAuthor(authorId: number, request: PageRequest): Promise<Page<Post>> {
    if (!(await this.posts.manager.existsBy(User, { id: authorId }))) throw DomainError.notFound('User', authorId);
    return this.list({ ...request, authorId });
  }

  async count(authorId?: number): Promise<number> {
    return this.posts.countBy(authorId === undefined ? {} : { authorId });
  }

  async findById(id: number): Promise<Post | null> {
    const [row] = await this.sql.rows<PostRow>(this.byIdStatement, [id]);
    return row ? postFromRow(row) : null;
  }

  async get(id: number): Promise<Post> {
    const post = await this.findById(id);
    if (!post) throw DomainError.notFound('Post', id);
    return post;
  }

  /** For batching: the posts with these ids, in no particular order. */
  async findByIds(ids: readonly number[]): Promise<Post[]> {
    if (ids.length === 0) return [];
    const placeholders = ids.map((_, index) => `$${index + 1}`).join(', ');
    const rows = await this.sql.rows<PostRow>(this.sql.statement(`SELECT ${POST_COLUMNS} FROM posts p WHERE p.id IN (${placeholders})`), ids);
    return rows.map(postFromRow);
  }

  /**
   * For batching: one page (newest first, before `request.after`) of the posts of each of
   * these authors, in one statement whatever the number of authors.
   */
  async listForAuthors(authorIds: readonly number[], request: PageRequest): Promise<Map<number, Post[]>> {
    const byAuthor = new Map<number, Post[]>(authorIds.map((id) => [id, []]));
    if (authorIds.length === 0) return byAuthor;
    const after = request.after === undefined ? '' : ' AND ranked.id < :after';
    const rows = await this.posts
      .createQueryBuilder('post')
      .where(
        `post.id IN (SELECT page.id FROM (SELECT ranked.id AS id, ROW_NUMBER() OVER ` +
          `(PARTITION BY ranked.author_id ORDER BY ranked.id DESC) AS rn FROM ${this.posts.metadata.tableName} ranked ` +
          `WHERE ranked.author_id IN (:...authorIds)${after}) page WHERE page.rn <= :limit)`,
        { authorIds: [...authorIds], limit: request.limit, ...(request.after === undefined ? {} : { after: request.after }) },
      )
      .orderBy('post.id', 'DESC')
      .getMany();
    for (const post of rows) byAuthor.get(post.authorId)?.push(post);
    return byAuthor;
  }

  /**
   * One statement (INSERT … RETURNING), atomic by itself. An authorId that names no user is
   * caught by the foreign key rather than checked first.
   */
  async create(input: CreatePostDto, actor: Actor | null): Promise<Post> {
    const who = this.policy.requireActor(actor);
    if (input.authorId !== undefined && input.authorId !== who.id) this.policy.assertAdminFor(who, 'authorId');
    const authorId = input.authorId ?? who.id;
    const now = this.sql.timestamp(new Date());
    const [row] = await this.transactions
      .single(() => this.sql.rows<PostRow>(this.insertStatement, [input.title, input.body, authorId, now, now]))
      .catch((error: unknown) => {
        if (authorId !== who.id && isForeignKeyViolation(error)) {
          throw DomainError.badInput(`authorId ${authorId} is not a user`, [
            { field: 'authorId', message: `authorId ${authorId} is not a user` },
          ]);
        }
        throw error;
      });
    const post = postFromRow(row);
    this.events.publish(event('postCreated', post));
    return post;
  }

  async update(id: number, input: UpdatePostDto, actor: Actor | null, options: WriteOptions = {}): Promise<Post> {
    this.policy.requireActor(actor);
    const post = await this.transactions.run(async (manager) => {
      const current = await manager.findOneBy(Post, { id });
      if (!current) throw DomainError.notFound('Post', id);
      this.policy.assertCanModify(actor, current, 'post');
      const changes: Partial<Post> = {};
      if (input.title !== undefined) changes.title = input.title;
      if (input.body !== undefined) changes.body = input.body;
      return updateVersioned(manager, Post, current, changes, options.expectedVersion);
    });
    this.events.publish(event('postUpdated', post));
    return post;
  }

  async delete(id: number, actor: Actor | null): Promise<void> {
    this.policy.requireActor(actor);
    const { post, comments } = await this.transactions.run(async (manager) => {
      const current = await manager.findOneBy(Post, { id });
      if (!current) throw DomainError.notFound('Post', id);
      this.policy.assertCanModify(actor, current, 'post');
      const cascaded = await manager.find(Comment, { select: { id: true, postId: true, authorId: true }, where: { postId: id } });
      // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
      if ((await manager.delete(Post, { id })).affected === 0) throw DomainError.notFound('Post', id);
      return { post: current, comments: cascaded };
    });
    this.events.publish(
      ...comments.map((comment) => event('commentDeleted', { id: comment.id, postId: comment.postId, authorId: comment.authorId })),
      event('postDeleted', { id: post.id, authorId: post.authorId }),
    );
  }
}
