import { createHmac, timingSafeEqual } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { ReadPolicy } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { AppConfig } from '../config/app-config.js';
import { PublicUrls } from '../publication/public-urls.js';
import type { Post } from './post.entity.js';
import { PostsRepository } from './posts.repository.js';

/** What POST /posts/{id}/previews answers. */
export interface PreviewLink {
  token: string;
  url: string;
  expiresAt: Date;
}

/** `{expiry in seconds, base 36}.{HMAC-SHA256, base64url}`. */
const TOKEN = /^([0-9a-z]{1,10})\.([A-Za-z0-9_-]{43})$/;

/**
 * Preview links (CONTRACT §13): a token that opens one post, whatever its state, to whoever holds
 * it, until it expires or the post's preview stamp moves on (DELETE revokes them all at once).
 * The token is an HMAC of the post's id, its expiry and the stamp, so no session is kept and any
 * instance with the same JWT_SECRET checks it.
 */
@Injectable()
export class PostPreviews {
  private readonly key: Buffer;
  private readonly ttlMs: number;

  constructor(
    config: AppConfig,
    private readonly posts: PostsRepository,
    private readonly policy: AuthorizationPolicy,
    private readonly readPolicy: ReadPolicy,
    private readonly urls: PublicUrls,
  ) {
    this.key = createHmac('sha256', config.jwtSecret).update('blog preview links v1').digest();
    this.ttlMs = config.previewTtlS * 1000;
  }

  /** A new link (its author, editors, admins: whoever may change the post); 404 when the caller may not see it. */
  async create(id: number, actor: Actor | null): Promise<PreviewLink> {
    await this.previewable(id, actor);
    const stamp = await this.posts.previewStampOf(id);
    if (stamp === null) throw DomainError.notFound('Post', id);
    const expires = Math.ceil((Date.now() + this.ttlMs) / 1000);
    const token = `${expires.toString(36)}.${this.signature(id, expires, stamp).toString('base64url')}`;
    return { token, url: this.urls.absolute(`/posts/${id}?preview=${token}`), expiresAt: new Date(expires * 1000) };
  }

  /** Every link of the post stops opening it. */
  async revoke(id: number, actor: Actor | null): Promise<void> {
    await this.previewable(id, actor);
    await this.posts.bumpPreviewStamp(id);
  }

  /** Whether the token opens this post now: made for it, not expired, not revoked. */
  async opens(post: Pick<Post, 'id'>, token: string): Promise<boolean> {
    const match = TOKEN.exec(token);
    if (!match) return false;
    const expires = parseInt(match[1], 36);
    if (expires * 1000 <= Date.now()) return false;
    const stamp = await this.posts.previewStampOf(post.id);
    if (stamp === null) return false;
    return timingSafeEqual(Buffer.from(match[2], 'base64url'), this.signature(post.id, expires, stamp));
  }

  private signature(id: number, expires: number, stamp: number): Buffer {
    return createHmac('sha256', this.key).update(`${id}.${expires}.${stamp}`).digest();
  }

  private async previewable(id: number, actor: Actor | null): Promise<void> {
    const who = this.policy.requireActor(actor);
    const post = await this.posts.visibilityOf(id);
    if (!post || !this.readPolicy.canSeePost(who, post)) throw DomainError.notFound('Post', id);
    this.policy.authorize(who, 'posts.edit', post.authorId);
  }
}
