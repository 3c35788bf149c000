import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { MoreThan, Repository, type FindOptionsWhere } from 'typeorm';
import type { Actor } from '../auth/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import { updateVersioned, type WriteOptions } from '../common/persistence/versioned-update.js';
import { Post } from '../posts/post.entity.js';
import { event } from '../subscriptions/blog-events.js';
import { EventPublisher } from '../subscriptions/event-publisher.js';
import { Comment } from './comment.entity.js';
import type { CreateCommentDto } from './dto/create-comment.dto.js';
import type { UpdateCommentDto } from './dto/update-comment.dto.js';

@Injectable()
export class CommentsService {
  constructor(
    @InjectRepository(Comment) private readonly comments: Repository<Comment>,
    @InjectRepository(Post) private readonly posts: Repository<Post>,
    private readonly policy: AuthorizationPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
  ) {}

  /** A post's comments, oldest first, keyset-paged on (post_id, id). 404 when the post is missing. */
  async listForPost(postId: number, request: PageRequest): Promise<Page<Comment>> {
    if (!(await this.posts.existsBy({ id: postId }))) throw DomainError.notFound('Post', postId);
    const where: FindOptionsWhere<Comment> = { postId };
    if (request.after !== undefined) where.id = MoreThan(request.after);
    const rows = await this.comments.find({ where, order: { id: 'ASC' }, take: request.limit + 1 });
    return toPage(rows, request.limit);
  }

  findById(id: number): Promise<Comment | null> {
    return this.comments.findOneBy({ id });
  }

  async get(id: number): Promise<Comment> {
    const comment = await this.findById(id);
    if (!comment) throw DomainError.notFound('Comment', id);
    return comment;
  }

  async create(postId: number, input: CreateCommentDto, actor: Actor | null): Promise<Comment> {
    const who = this.policy.requireActor(actor);
    const comment = await this.transactions.run(async (manager) => {
      if (!(await manager.existsBy(Post, { id: postId }))) throw DomainError.notFound('Post', postId);
      const now = new Date();
      return manager.save(manager.create(Comment, { postId, body: input.body, authorId: who.id, createdAt: now, updatedAt: now }));
    });
    this.events.publish(event('commentCreated', comment));
    return comment;
  }

  async update(id: number, input: UpdateCommentDto, actor: Actor | null, options: WriteOptions = {}): Promise<Comment> {
    this.policy.requireActor(actor);
    const comment = await this.transactions.run(async (manager) => {
      const current = await manager.findOneBy(Comment, { id });
      if (!current) throw DomainError.notFound('Comment', id);
      this.policy.assertCanModify(actor, current, 'comment');
      return updateVersioned(manager, Comment, current, { body: input.body }, options.expectedVersion);
    });
    this.events.publish(event('commentUpdated', comment));
    return comment;
  }

  async delete(id: number, actor: Actor | null): Promise<void> {
    this.policy.requireActor(actor);
    const comment = await this.transactions.run(async (manager) => {
      const current = await manager.findOneBy(Comment, { id });
      if (!current) throw DomainError.notFound('Comment', id);
      this.policy.assertCanModify(actor, current, 'comment');
      await manager.delete(Comment, { id });
      return current;
    });
    this.events.publish(event('commentDeleted', { id: comment.id, postId: comment.postId, authorId: comment.authorId }));
  }
}
