import { Injectable } from '@nestjs/common';
import type { Actor, Role } from '../common/actor.js';
import { rolesWith } from './permissions.js';

/** A post's place in its editorial life (CONTRACT §7, §16: `in_review`, submitted and waiting for a reviewer). Only `published` posts are public. */
export const POST_STATUSES = ['draft', 'in_review', 'scheduled', 'published', 'trashed'] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

/** A comment's moderation status (CONTRACT §9). Only `approved` comments are public. */
export const COMMENT_STATUSES = ['approved', 'pending', 'spam', 'hidden'] as const;
export type CommentStatus = (typeof COMMENT_STATUSES)[number];

/** The roles that read every non-public post and what is under it (permissions: posts.readNonPublic). */
export const NON_PUBLIC_READERS: readonly Role[] = rolesWith('posts.readNonPublic');

/** The roles that see every comment whatever its status (permissions: comments.moderate). */
export const MODERATORS: readonly Role[] = rolesWith('comments.moderate');

/**
 * Who may read an event: everyone (`public`); or the owner and the roles that read every
 * non-public post (`restricted`); or the owner and the moderating roles (`moderated`). Stored
 * with each event (`events.audience`, `audience_owner`).
 */
export type Audience = 'public' | 'restricted' | 'moderated';

export interface AudienceSet {
  audience: Audience;
  /** The user the event also belongs to; null: only the audience's roles (or everyone, when public). */
  owner: number | null;
}

/**
 * An event's readers: those in the audience set, but not those in `except` (a transition: the
 * public `COMMENT_CREATED` of an approval is for those who did not see the comment pending;
 * they got its `COMMENT_UPDATED`). Stored as `events.audience_except`, `audience_except_owner`.
 */
export interface EventAudience extends AudienceSet {
  except?: AudienceSet | null;
}

export const PUBLIC_AUDIENCE: EventAudience = Object.freeze({ audience: 'public', owner: null });

/** The roles behind each non-public audience (NON_PUBLIC_READERS ⊆ MODERATORS). */
const AUDIENCE_ROLES: Record<Exclude<Audience, 'public'>, readonly Role[]> = { restricted: NON_PUBLIC_READERS, moderated: MODERATORS };

/**
 * Which posts a reader sees, as repositories turn it into a WHERE clause: only published
 * posts, published posts and the reader's own, or every post.
 */
export type PostScope = { kind: 'public' } | { kind: 'public-or-own'; ownerId: number } | { kind: 'all' };

/**
 * Which comments of a post the reader sees (once they see the post), as repositories turn it
 * into a WHERE clause: approved ones, approved ones and their own pending ones, or all.
 */
export type CommentScope = { kind: 'approved' } | { kind: 'approved-or-own'; authorId: number } | { kind: 'all' };

/** The fields of a post the policy looks at. */
export interface PostVisibility {
  status: PostStatus;
  authorId: number;
}

/** The fields of a comment the policy looks at. */
export interface CommentVisibility {
  status: CommentStatus;
  authorId: number;
}

/** The fields of a media item the policy looks at: its uploader, and whether a public post uses it. */
export interface MediaVisibility {
  uploaderId: number;
  isPublic: boolean;
}

/** The events a change of visibility sends (ReadPolicy.transition): each to its own readers; absent: to nobody. */
export interface VisibilityTransition {
  /** Those who saw it before and still do: `*_UPDATED`. */
  updated?: EventAudience;
  /** Those who see it now and did not: `*_CREATED`. */
  created?: EventAudience;
  /** Those who saw it and no longer do: `*_DELETED`. */
  deleted?: EventAudience;
}

/**
 * The one read policy (CONTRACT v3 preamble, §7, §9): whether a caller may see a post, a
 * comment, and so the revisions and events about them. Every door asks it, in memory
 * (canSee*) or in SQL (postScope, commentScope, audienceSql): REST in every format,
 * GraphQL at any depth, subscriptions on every transport, the event feed and its replay,
 * webhooks (the anonymous reader) and the response cache (which keeps only answers an
 * anonymous reader may get).
 *
 * | reader                 | published post | non-public post | approved comment | pending comment | spam, hidden |
 * |------------------------|----------------|-----------------|------------------|-----------------|--------------|
 * | anonymous              | yes            | no (404)        | yes              | no              | no           |
 * | another user           | yes            | no              | yes              | no              | no           |
 * | the author             | yes            | yes (own)       | yes              | yes (own)       | no           |
 * | moderator              | yes            | own             | yes              | yes             | yes          |
 * | editor, admin          | yes            | yes             | yes              | yes             | yes          |
 *
 * A comment is seen when its post is AND its status is. An API key with the `write` scope reads what
 * its user reads; one with `read` alone reads what anonymous callers read (CONTRACT §3: `read` is
 * what anyone may read, plus `me` and the user's own keys, never the role's or the author's powers).
 *
 * A tag (CONTRACT §18) is public when a public post carries it, or when it was announced and no
 * post carries it; else only those who see one of its posts see it (tagScope): its posts' writers,
 * editors and admins. Its TAG_CREATED follows: restricted while only non-public posts carry it,
 * announced to the public (TagsService.announceTagsOf) when a public post first does.
 *
 * A media item (CONTRACT §14) is public once a public post uses it as its cover; else only its
 * uploader, editors and admins see it (mediaScope, canSeeMedia), on every door.
 */
@Injectable()
export class ReadPolicy {
  /**
   * The actor as visibility sees it: null (anonymous) for an API key without the `write` scope.
   * Every other method goes through it, so no door can read with a read key's role.
   */
  reader(actor: Actor | null | undefined): Actor | null {
    if (!actor || (actor.scopes && !actor.scopes.includes('write'))) return null;
    return actor;
  }

  /** ReadPolicy.canSeeAudience's reader in the form of the SQL of audiences (audienceSql). */
  audienceReader(actor: Actor | null | undefined): AudienceReader {
    const reader = this.reader(actor);
    return reader ? { role: reader.role, userId: reader.id } : ANONYMOUS_READER;
  }

  /** Whether the reader sees every non-public post. */
  readsAll(actor: Actor | null | undefined): boolean {
    const reader = this.reader(actor);
    return !!reader && NON_PUBLIC_READERS.includes(reader.role);
  }

  /** Whether the reader sees every comment, whatever its status (and may moderate). */
  moderates(actor: Actor | null | undefined): boolean {
    const reader = this.reader(actor);
    return !!reader && MODERATORS.includes(reader.role);
  }

  postScope(actor: Actor | null | undefined): PostScope {
    const reader = this.reader(actor);
    if (!reader) return { kind: 'public' };
    if (this.readsAll(reader)) return { kind: 'all' };
    return { kind: 'public-or-own', ownerId: reader.id };
  }

  /**
   * Which tags a reader sees (CONTRACT §18): the public ones (a public post carries it, or it was
   * announced and no post carries it), and those on the posts the reader sees; so the scope of
   * posts, which TagsRepository turns into its WHERE clause.
   */
  tagScope(actor: Actor | null | undefined): PostScope {
    return this.postScope(actor);
  }

  /**
   * Which media items a reader sees (CONTRACT §14): the public ones (a public post uses it as its
   * cover), those they uploaded, or, for editors and admins, all; MediaRepository turns it into
   * its WHERE clause. (Images in bodies and avatars do not make an item public yet.)
   */
  mediaScope(actor: Actor | null | undefined): PostScope {
    return this.postScope(actor);
  }

  /** One media item, as mediaScope sees it: public, the reader's upload, or the reader sees all. */
  canSeeMedia(actor: Actor | null | undefined, media: MediaVisibility): boolean {
    return media.isPublic || this.canSeeNonPublic(actor, media.uploaderId);
  }

  /** The audience of an event about a media item in the state it is in now. */
  mediaAudienceOf(media: MediaVisibility): EventAudience {
    return media.isPublic ? PUBLIC_AUDIENCE : { audience: 'restricted', owner: media.uploaderId };
  }

  commentScope(actor: Actor | null | undefined): CommentScope {
    const reader = this.reader(actor);
    if (!reader) return { kind: 'approved' };
    if (this.moderates(reader)) return { kind: 'all' };
    return { kind: 'approved-or-own', authorId: reader.id };
  }

  /**
   * What a reader sees, as one key: readers with the same key get the same answer from every
   * query (subscriptions share one execution per key).
   */
  viewKey(actor: Actor | null | undefined): string {
    return JSON.stringify([this.postScope(actor), this.commentScope(actor)]);
  }

  canSeePost(actor: Actor | null | undefined, post: PostVisibility): boolean {
    return post.status === 'published' || this.canSeeNonPublic(actor, post.authorId);
  }

  /** A comment of a post the reader sees: by its status alone (the post is checked by canSeeComment). */
  canSeeCommentStatus(actor: Actor | null | undefined, comment: CommentVisibility): boolean {
    if (comment.status === 'approved' || this.moderates(actor)) return true;
    const reader = this.reader(actor);
    return comment.status === 'pending' && !!reader && reader.id === comment.authorId;
  }

  canSeeComment(actor: Actor | null | undefined, comment: CommentVisibility, post: PostVisibility): boolean {
    return this.canSeePost(actor, post) && this.canSeeCommentStatus(actor, comment);
  }

  /** Revisions are the author's and the editors' working history, published or not. */
  canSeeRevisions(actor: Actor | null | undefined, post: PostVisibility): boolean {
    return this.canSeeNonPublic(actor, post.authorId);
  }

  /** A post's review decisions (CONTRACT §16): its author's, the editors' and the admins', published or not. */
  canSeeReviews(actor: Actor | null | undefined, post: PostVisibility): boolean {
    return this.canSeeNonPublic(actor, post.authorId);
  }

  /** The audience of POST_SUBMITTED and POST_REVIEWED, whatever the post's state: its author and the reviewers (the roles that read every non-public post). */
  reviewAudienceOf(post: PostVisibility): EventAudience {
    return { audience: 'restricted', owner: post.authorId };
  }

  /** The audience of an event about a post (or something under it) in the state it is in now. */
  audienceOf(post: PostVisibility): EventAudience {
    return post.status === 'published' ? PUBLIC_AUDIENCE : { audience: 'restricted', owner: post.authorId };
  }

  /**
   * The audience of an event about a comment in the state it and its post are in now: those
   * who see both (restricted ⊆ moderated, so the narrower wins).
   */
  commentAudienceOf(comment: CommentVisibility, post: PostVisibility): EventAudience {
    const postAudience = this.audienceOf(post);
    if (comment.status === 'approved') return postAudience;
    const commentAudience: AudienceSet = { audience: 'moderated', owner: comment.status === 'pending' ? comment.authorId : null };
    return intersect(postAudience, commentAudience);
  }

  /**
   * The events of a change from what `before` reached to what `after` reaches: an update for
   * those in both, a creation for those only in `after`, a deletion for those only in `before`.
   */
  transition(before: EventAudience, after: EventAudience): VisibilityTransition {
    const result: VisibilityTransition = { updated: intersect(before, after) };
    if (!contains(before, after)) result.created = { ...after, except: bare(before) };
    if (!contains(after, before)) result.deleted = { ...before, except: bare(after) };
    return result;
  }

  canSeeAudience(actor: Actor | null | undefined, event: EventAudience): boolean {
    const reader = this.reader(actor);
    return this.inSet(reader, event) && !(event.except && this.inSet(reader, event.except));
  }

  private inSet(reader: Actor | null, set: AudienceSet): boolean {
    if (set.audience === 'public') return true;
    return !!reader && (reader.id === set.owner || AUDIENCE_ROLES[set.audience].includes(reader.role));
  }

  private canSeeNonPublic(actor: Actor | null | undefined, ownerId: number | null): boolean {
    const reader = this.reader(actor);
    return !!reader && (reader.id === ownerId || this.readsAll(reader));
  }
}

/** A reader as the SQL of audiences needs it. */
export interface AudienceReader {
  role: Role | null;
  userId: number | null;
}

/** The reader of webhooks and anonymous requests. */
export const ANONYMOUS_READER: AudienceReader = Object.freeze({ role: null, userId: null });

/** ReadPolicy.canSeeAudience as a WHERE condition on the events table; null when it holds for every event. */
export function audienceSql(reader: AudienceReader, bind: (value: unknown) => string): string | null {
  const kinds = (['restricted', 'moderated'] as const).filter((kind) => reader.role !== null && AUDIENCE_ROLES[kind].includes(reader.role));
  const list = ['public', ...kinds].map((kind) => `'${kind}'`).join(', ');
  const conditions: string[] = [];
  if (kinds.length < 2) conditions.push(`(audience IN (${list})${reader.userId === null ? '' : ` OR audience_owner = ${bind(reader.userId)}`})`);
  // An `except` set is never public: anonymous readers are never in one.
  if (reader.role !== null) {
    // Written without NOT over a nullable comparison: NOT (… OR NULL) would drop the row.
    const owner = reader.userId === null ? '' : ` AND (audience_except_owner IS NULL OR audience_except_owner <> ${bind(reader.userId)})`;
    conditions.push(`(audience_except IS NULL OR (audience_except NOT IN (${list})${owner}))`);
  }
  return conditions.length > 0 ? conditions.join(' AND ') : null;
}

const WIDTH: Record<Audience, number> = { restricted: 0, moderated: 1, public: 2 };

/**
 * The events that reach readers, by role or publicly, outside `set` (an audience wider than its):
 * what loses its content when content stops being seen that widely (EventPublisher.withdrawContent),
 * as a WHERE condition; null when `set` is public. Owners are not looked at: an event's owner
 * (the author of the post it is about or under, or of the pending comment it carries) keeps what
 * it read in its own events.
 */
export function audienceBeyondSql(set: AudienceSet): string | null {
  if (set.audience === 'public') return null;
  const wider = (Object.keys(WIDTH) as Audience[]).filter((kind) => WIDTH[kind] > WIDTH[set.audience]);
  return `audience IN (${wider.map((kind) => `'${kind}'`).join(', ')})`;
}

function bare(set: AudienceSet): AudienceSet {
  return { audience: set.audience, owner: set.owner };
}

/** Those in both sets (an owner in one set who is in the other only by role is left out: a narrower audience is safe). */
function intersect(a: AudienceSet, b: AudienceSet): EventAudience {
  if (a.audience === 'public') return bare(b);
  if (b.audience === 'public') return bare(a);
  const narrower = WIDTH[a.audience] <= WIDTH[b.audience] ? a.audience : b.audience;
  return { audience: narrower, owner: a.owner === b.owner ? a.owner : null };
}

/** Whether everyone in `b` is in `a` (as far as the sets tell without looking at an owner's role). */
function contains(a: AudienceSet, b: AudienceSet): boolean {
  if (a.audience === 'public') return true;
  if (b.audience === 'public') return false;
  return WIDTH[a.audience] >= WIDTH[b.audience] && (b.owner === null || b.owner === a.owner);
}
