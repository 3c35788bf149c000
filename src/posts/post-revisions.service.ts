import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { ReadPolicy } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import type { Companion } from '../common/persistence/resource-repository.js';
import type { Executor } from '../common/persistence/sql.js';
import type { Post } from './post.entity.js';
import type { PostRevision } from './post-revision.entity.js';
import { PostRevisionsRepository } from './post-revisions.repository.js';
import { PostsRepository } from './posts.repository.js';

/**
 * A post's revisions: who may read them (its author, editors and admins; 404 for everyone else,
 * even of a public post), the reads, and what the write path records and restores. The
 * recording happens in the write's transaction (PostsService), through `recordFirst` and `record`.
 */
@Injectable()
export class PostRevisions {
  constructor(
    private readonly revisions: PostRevisionsRepository,
    private readonly posts: PostsRepository,
    private readonly readPolicy: ReadPolicy,
  ) {}

  /** A post's revisions, newest first: for its author and admins; 404 for everyone else. */
  async list(postId: number, request: PageRequest, actor: Actor | null | undefined): Promise<Page<PostRevision>> {
    await this.revisionsOf(postId, actor);
    return this.revisions.page(postId, request);
  }

  async get(postId: number, number: number, actor: Actor | null | undefined): Promise<PostRevision> {
    await this.revisionsOf(postId, actor);
    const revision = await this.revisions.find(postId, number);
    if (!revision) throw DomainError.notFound('Revision', number);
    return revision;
  }

  canSee(actor: Actor | null | undefined, post: Post): boolean {
    return this.readPolicy.canSeeRevisions(actor, post);
  }

  /** For batching (Post.revisions): the newest revisions of each of these posts, in one statement; callers apply `canSee`. */
  newest(postIds: readonly number[], limit: number): Promise<Map<number, PostRevision[]>> {
    return this.revisions.newestFor(postIds, limit);
  }

  /** Revision 1 of a new post. */
  recordFirst(post: Post, editorId: number, executor: Executor): Promise<void> {
    return this.revisions.recordFirst(post, editorId, executor);
  }

  /** `recordFirst`, written with the post's row by its INSERT (PostsRepository.insertClaiming). */
  firstFrom(editorId: number): Companion<Post> {
    return this.revisions.firstFrom(editorId);
  }

  /** The next revision of a post whose title, body or status changed (editor null: the scheduler). */
  record(post: Post, editorId: number | null, executor: Executor): Promise<PostRevision> {
    return this.revisions.record(post, editorId, executor);
  }

  /** The title and body a PATCH restores from revision `number`; 400 naming `revision` when the post has none of that number. */
  async contentOf(postId: number, number: number, executor: Executor): Promise<Pick<PostRevision, 'title' | 'body'>> {
    const revision = await this.revisions.find(postId, number, executor);
    if (!revision) throw DomainError.badInput(`post ${postId} has no revision ${number}`, [{ field: 'revision', message: 'is not a revision of this post' }]);
    return revision;
  }

  private async revisionsOf(postId: number, actor: Actor | null | undefined): Promise<Post> {
    const post = await this.posts.findById(postId);
    if (!post || !this.readPolicy.canSeeRevisions(actor, post)) throw DomainError.notFound('Post', postId);
    return post;
  }
}
