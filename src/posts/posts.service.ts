import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { isForeignKeyViolation } from '../common/errors/normalize-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { WriteOptions } from '../common/persistence/write-options.js';
import { event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import { UsersService } from '../users/users.service.js';
import type { CreatePostDto } from './dto/create-post.dto.js';
import type { UpdatePostDto } from './dto/update-post.dto.js';
import type { Post } from './post.entity.js';
import { PostsRepository } from './posts.repository.js';

export interface PostListRequest extends PageRequest {
  authorId?: number;
}

@Injectable()
export class PostsService {
  constructor(
    private readonly posts: PostsRepository,
    private readonly users: UsersService,
    private readonly policy: AuthorizationPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
  ) {}

  /** Newest first, keyset-paged on the primary key (or on (author_id, id) with authorId). */
  list(request: PostListRequest): Promise<Page<Post>> {
    return this.posts.page(request, 'desc', request.authorId === undefined ? undefined : { column: 'authorId', value: request.authorId });
  }

  /** A user's posts, newest first; 404 when the user does not exist. */
  async listForAuthor(authorId: number, request: PageRequest): Promise<Page<Post>> {
    if (!(await this.users.exists(authorId))) throw DomainError.notFound('User', authorId);
    return this.list({ ...request, authorId });
  }

  count(authorId?: number): Promise<number> {
    return this.posts.count(authorId === undefined ? undefined : { column: 'authorId', value: authorId });
  }

  findById(id: number): Promise<Post | null> {
    return this.posts.findById(id);
  }

  exists(id: number): Promise<boolean> {
    return this.posts.exists(id);
  }

  async get(id: number): Promise<Post> {
    const post = await this.findById(id);
    if (!post) throw DomainError.notFound('Post', id);
    return post;
  }

  /**
   * For batching: the posts with these ids, in no particular order. With `withAuthors`, each
   * post's author is joined in (`post.author`), so the author costs no further statement.
   */
  findByIds(ids: readonly number[], options: { withAuthors?: boolean } = {}): Promise<Post[]> {
    return this.posts.findByIds(ids, options.withAuthors ? this.posts.withAuthor : undefined);
  }

  /** For batching: one page (newest first) of the posts of each of these authors, in one statement. */
  listForAuthors(authorIds: readonly number[], request: PageRequest): Promise<Map<number, Post[]>> {
    return this.posts.pagesFor('authorId', authorIds, request, 'desc');
  }

  /**
   * The INSERT … RETURNING and its event, atomically (one statement on PostgreSQL). An authorId
   * that names no user is caught by the foreign key rather than checked first.
   */
  async create(input: CreatePostDto, actor: Actor | null): Promise<Post> {
    const who = this.policy.requireActor(actor);
    if (input.authorId !== undefined && input.authorId !== who.id) this.policy.assertAdminFor(who, 'authorId');
    const authorId = input.authorId ?? who.id;
    const post = await this.posts
      .insertRecorded({ ...input, authorId }, this.events.created('postCreated'))
      .catch((error: unknown) => {
        if (authorId !== who.id && isForeignKeyViolation(error)) {
          throw DomainError.badInput(`authorId ${authorId} is not a user`, [
            { field: 'authorId', message: `authorId ${authorId} is not a user` },
          ]);
        }
        throw error;
      });
    this.events.committed();
    return post;
  }

  async update(id: number, input: UpdatePostDto, actor: Actor | null, options: WriteOptions = {}): Promise<Post> {
    this.policy.requireActor(actor);
    const post = await this.transactions.run(async (manager) => {
      const current = await this.posts.findById(id, manager);
      if (!current) throw DomainError.notFound('Post', id);
      this.policy.assertCanModify(actor, current, 'post');
      const updated = await this.posts.updateVersioned(current, { ...input }, options.expectedVersion, manager);
      await this.events.record(manager, event('postUpdated', updated));
      return updated;
    });
    this.events.committed();
    return post;
  }

  async delete(id: number, actor: Actor | null): Promise<void> {
    this.policy.requireActor(actor);
    await this.transactions.run(async (manager) => {
      const current = await this.posts.findById(id, manager);
      if (!current) throw DomainError.notFound('Post', id);
      this.policy.assertCanModify(actor, current, 'post');
      const comments = await this.posts.cascadedComments(id, manager);
      // Two deletes that both read the row: only the one whose DELETE removed it succeeds.
      if (!(await this.posts.delete(id, manager))) throw DomainError.notFound('Post', id);
      await this.events.eraseContent(manager, { postIds: [id] });
      await this.events.record(
        manager,
        ...comments.map((comment) => event('commentDeleted', comment)),
        event('postDeleted', { id: current.id, authorId: current.authorId }),
      );
    });
    this.events.committed();
  }
}
