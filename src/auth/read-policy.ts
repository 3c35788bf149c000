import { Injectable } from '@nestjs/common';
import type { Actor, Role } from '../common/actor.js';

/** A post's place in its editorial life (CONTRACT §7). Only `published` posts are public. */
export const POST_STATUSES = ['draft', 'scheduled', 'published', 'trashed'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** The roles that read every non-public post and what is under it (editors join them in §9). */
export const NON_PUBLIC_READERS: readonly Role[] = ['admin'];

/**
 * Who may read an event: everyone, or only the owner (the post's author) and the roles that
 * read every non-public post. Stored with each event (`events.audience`, `audience_owner`).
 */
export type Audience = 'public' | 'restricted';

export interface EventAudience {
  audience: Audience;
  /** The user a restricted event belongs to; null for public events. */
  owner: number | null;
}

export const PUBLIC_AUDIENCE: EventAudience = Object.freeze({ audience: 'public', owner: null });

/**
 * Which posts a reader sees, as repositories turn it into a WHERE clause: only published
 * posts, published posts and the reader's own, or every post.
 */
export type PostScope = { kind: 'public' } | { kind: 'public-or-own'; ownerId: number } | { kind: 'all' };

/** The fields of a post the policy looks at. */
export interface PostVisibility {
  status: PostStatus;
  authorId: number;
}

/**
 * The one read policy (CONTRACT v3 preamble): whether a caller may see a post, and so its
 * comments, its revisions and the events about them. Every door asks it, in memory (canSee*)
 * or in SQL (postScope): REST in every format, GraphQL at any depth, subscriptions on every
 * transport, the event feed and its replay, webhooks (the anonymous reader) and the response
 * cache (which keeps only answers an anonymous reader may get).
 *
 * | reader                  | published | draft, scheduled, trashed (and their comments, revisions, events) |
 * |-------------------------|-----------|---------------------------------------------------------------------|
 * | anonymous               | yes       | no (404, absent from lists and counts)                              |
 * | another user            | yes       | no                                                                  |
 * | the author              | yes       | yes                                                                 |
 * | admin (editor from §9)  | yes       | yes                                                                 |
 *
 * An API key reads what its user reads (`read` is enough).
 */
@Injectable()
export class ReadPolicy {
  /** Whether the reader sees every non-public post. */
  readsAll(actor: Actor | null | undefined): boolean {
    return !!actor && NON_PUBLIC_READERS.includes(actor.role);
  }

  postScope(actor: Actor | null | undefined): PostScope {
    if (!actor) return { kind: 'public' };
    if (this.readsAll(actor)) return { kind: 'all' };
    return { kind: 'public-or-own', ownerId: actor.id };
  }

  canSeePost(actor: Actor | null | undefined, post: PostVisibility): boolean {
    return post.status === 'published' || this.canSeeNonPublic(actor, post.authorId);
  }

  /** Revisions are the author's and the editors' working history, published or not. */
  canSeeRevisions(actor: Actor | null | undefined, post: PostVisibility): boolean {
    return this.canSeeNonPublic(actor, post.authorId);
  }

  /** The audience of an event about a post (or something under it) in the state it is in now. */
  audienceOf(post: PostVisibility): EventAudience {
    return post.status === 'published' ? PUBLIC_AUDIENCE : { audience: 'restricted', owner: post.authorId };
  }

  canSeeAudience(actor: Actor | null | undefined, event: EventAudience): boolean {
    return event.audience === 'public' || this.canSeeNonPublic(actor, event.owner);
  }

  private canSeeNonPublic(actor: Actor | null | undefined, ownerId: number | null): boolean {
    return !!actor && (actor.id === ownerId || this.readsAll(actor));
  }
}
