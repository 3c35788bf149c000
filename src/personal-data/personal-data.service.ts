import { Injectable } from '@nestjs/common';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { AuditEntriesRepository } from '../audit/audit-entries.repository.js';
import { type AuditEntryRecord, auditRecord } from '../audit/audit-entry.view.js';
import { AuditLog } from '../audit/audit-log.service.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import type { Actor } from '../common/actor.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import { COMMENT_RESOURCE } from '../comments/comment.resource.js';
import { CommentsRepository } from '../comments/comments.repository.js';
import { MEDIA_RESOURCE } from '../media/media.resource.js';
import { MediaService } from '../media/media.service.js';
import { ExternalIdentitiesRepository } from '../oidc/external-identities.repository.js';
import type { PostRevision } from '../posts/post-revision.entity.js';
import { REVISION_RESOURCE } from '../posts/post-revision.resource.js';
import { POST_RESOURCE } from '../posts/post.resource.js';
import { PostRevisionsRepository } from '../posts/post-revisions.repository.js';
import { PostsRepository } from '../posts/posts.repository.js';
import { USER_RESOURCE } from '../users/user.resource.js';
import { UsersService } from '../users/users.service.js';

/** Where the current password is given for an export: a header (a GET has no body). */
export const CURRENT_PASSWORD_HEADER = 'X-Current-Password';

/** Rows read per statement: each page is written out before the next is read. */
const PAGE = 100;
/** Revisions read per statement (a post may have many). */
const REVISION_PAGE = 500;
/** The text handed to the reply at once, at least (the last piece aside): fewer, larger writes. */
const CHUNK = 64 * 1024;

/**
 * A person's data on request (CONTRACT §16, Personal data): one JSON document, written piece by
 * piece as keyset-paged reads come back, so that no export is ever held whole in memory. Each
 * item is shown as its own resource shows it (the resources' views), to its owner.
 *
 * The reads are not one snapshot: a post written while the export runs may be in it or not.
 */
@Injectable()
export class PersonalDataService {
  constructor(
    private readonly policy: AuthorizationPolicy,
    private readonly users: UsersService,
    private readonly posts: PostsRepository,
    private readonly revisions: PostRevisionsRepository,
    private readonly comments: CommentsRepository,
    private readonly media: MediaService,
    private readonly apiKeys: ApiKeysService,
    private readonly identities: ExternalIdentitiesRepository,
    private readonly audit: AuditLog,
    private readonly auditEntries: AuditEntriesRepository,
  ) {}

  /**
   * Checks who asks before anything is written: 401 anonymous; 403 INSUFFICIENT_SCOPE for an API
   * key, whatever its scopes (a key is a lasting credential: it must not carry a person's whole
   * record off); 403 FORBIDDEN for another user than the one exported (the user is public, so
   * 403 rather than 404), unless an admin; 404 for no such user; then the user themselves must
   * have signed in less than 5 minutes ago or give their current password (400 without either,
   * 403 when wrong, counted as a failed sign-in). Admins give no password.
   *
   * The export is recorded (`users.export`) before the document is written, so it is in it.
   * Returns the document as pieces of JSON text, read as they are consumed.
   */
  async export(userId: number, actor: Actor | null, currentPassword: string | undefined, clientAddress?: string): Promise<AsyncIterable<string>> {
    const who = this.policy.requirePerson(actor, 'An API key cannot export personal data: sign in');
    this.policy.authorize(who, 'users.export', userId);
    const user = await this.users.get(userId);
    if (!this.policy.may(who, 'users.export')) await this.users.confirmPresence(who, currentPassword, clientAddress, CURRENT_PASSWORD_HEADER);
    const apiKeys = await this.apiKeys.list(userId, who);
    await this.audit.recordAlone(who, { action: 'users.export', resource: { type: 'user', id: userId } });
    return coalesced(this.document(userId, USER_RESOURCE.view(user, true), apiKeys));
  }

  private async *document(userId: number, user: object, apiKeys: readonly object[]): AsyncGenerator<string> {
    yield `{"user":${JSON.stringify(user)},"posts":[`;
    yield* this.postsOf(userId);
    yield '],"comments":[';
    yield* items(this.pages((request) => this.comments.page(request, 'asc', { column: 'authorId', value: userId })), (comment) => COMMENT_RESOURCE.view(comment));
    yield '],"media":[';
    yield* items(this.pages((request) => this.media.uploadedPage(userId, request)), (media) => MEDIA_RESOURCE.view(media));
    yield `],"apiKeys":${JSON.stringify(apiKeys)}`;
    yield `,"externalIdentities":${JSON.stringify(await this.identities.linkedTo(userId))}`;
    yield ',"auditEntries":[';
    yield* items(this.auditPages(userId), (entry) => entry);
    yield ']}';
  }

  /** Every post of theirs in every state, oldest first, each with all its revisions (oldest first). */
  private async *postsOf(userId: number): AsyncGenerator<string> {
    let first = true;
    for await (const page of this.pages((request) => this.posts.page(request, 'asc', { column: 'authorId', value: userId }))) {
      const revisions = this.revisionsOf(page.map((post) => post.id));
      let next = await revisions.next();
      for (const post of page) {
        const view = JSON.stringify(POST_RESOURCE.view(post, true));
        // The post's own fields, then `revisions`, written one by one.
        yield `${first ? '' : ','}${view.slice(0, -1)},"revisions":[`;
        first = false;
        let firstRevision = true;
        while (!next.done && next.value.postId === post.id) {
          yield `${firstRevision ? '' : ','}${JSON.stringify(REVISION_RESOURCE.view(next.value))}`;
          firstRevision = false;
          next = await revisions.next();
        }
        yield ']}';
      }
      // A revision of none of them (none: both are in post order) would only be left unread.
      await revisions.return(undefined);
    }
  }

  /** The revisions of these posts, by post then number, page after page. */
  private async *revisionsOf(postIds: readonly number[]): AsyncGenerator<PostRevision> {
    let after: PostRevision | undefined;
    for (;;) {
      const page = await this.revisions.pageOfPosts(postIds, REVISION_PAGE, after);
      yield* page;
      if (page.length < REVISION_PAGE) return;
      after = page[page.length - 1];
    }
  }

  /** The audit entries whose actor or resource is the user, oldest first, page after page. */
  private async *auditPages(userId: number): AsyncGenerator<AuditEntryRecord[]> {
    let after = 0;
    for (;;) {
      const page = await this.auditEntries.pageOfUser(userId, after, PAGE);
      if (page.length > 0) yield page.map(auditRecord);
      if (page.length < PAGE) return;
      after = page[page.length - 1].id;
    }
  }

  /** The pages of a keyset-paged read in id order, to the last. */
  private async *pages<T extends { id: number }>(read: (request: PageRequest) => Promise<Page<T>>): AsyncGenerator<T[]> {
    let after: number | undefined;
    for (;;) {
      const { items, nextCursor } = await read(after === undefined ? { limit: PAGE } : { limit: PAGE, after });
      if (items.length > 0) yield items;
      if (nextCursor === null) return;
      after = items[items.length - 1].id;
    }
  }
}

/** The items of the pages as the elements of a JSON array (without its brackets). */
async function* items<T>(pages: AsyncIterable<T[]>, view: (item: T) => object): AsyncGenerator<string> {
  let first = true;
  for await (const page of pages) {
    yield (first ? '' : ',') + page.map((item) => JSON.stringify(view(item))).join(',');
    first = false;
  }
}

/** The pieces joined into chunks of at least CHUNK characters (the last one aside). */
async function* coalesced(pieces: AsyncIterable<string>): AsyncGenerator<string> {
  let buffer = '';
  for await (const piece of pieces) {
    buffer += piece;
    if (buffer.length >= CHUNK) {
      yield buffer;
      buffer = '';
    }
  }
  if (buffer.length > 0) yield buffer;
}
