import { Injectable } from '@nestjs/common';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { type EventAudience, PUBLIC_AUDIENCE, type PostVisibility, ReadPolicy } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import { normalizeError } from '../common/errors/normalize-error.js';
import { RateLimiter, rateLimited } from '../common/rate-limit/rate-limiter.js';
import { AppConfig } from '../config/app-config.js';
import type { Page } from '../common/pagination/cursor.js';
import type { Executor } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { WriteOptions } from '../common/persistence/write-options.js';
import { event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import { AuditLog, changesOf } from '../audit/audit-log.service.js';
import type { CreateTagDto } from './dto/create-tag.dto.js';
import { slugify } from './slug.js';
import type { Tag } from './tag.entity.js';
import { type TagAddress, type TagPageRequest, TagsRepository } from './tags.repository.js';

/** The window of RATE_LIMIT_TAGS_MAX: new tags per writer per hour. */
const NEW_TAGS_WINDOW_S = 3600;
const newTagsKey = (userId: number) => `tags:user:${userId}`;

/** A tag's fields whose changes its audit entries show. */
const AUDITED_FIELDS = ['name', 'slug'] as const satisfies readonly (keyof Tag)[];

/** The most tags one post carries (CONTRACT §8). */
export const MAX_TAGS_PER_POST = 10;

/**
 * Tags: anyone reads them; editors and admins (tags.manage) make, rename and delete them, each
 * write with its public event (TAG_CREATED, TAG_UPDATED, TAG_DELETED) in its transaction; a
 * post's writer tags it with existing tags or new ones (assignToPost, in the post's transaction:
 * a tag made that way is part of the post's change, announced by its POST_CREATED/POST_UPDATED).
 */
@Injectable()
export class TagsService {
  constructor(
    private readonly tags: TagsRepository,
    private readonly policy: AuthorizationPolicy,
    private readonly readPolicy: ReadPolicy,
    private readonly transactions: TransactionRunner,
    private readonly events: EventPublisher,
    private readonly limiter: RateLimiter,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  /** The tags the reader sees (ReadPolicy.tagScope), most used first. */
  list(request: TagPageRequest, actor: Actor | null): Promise<Page<Tag>> {
    return this.tags.mostUsedPage(request, this.readPolicy.tagScope(actor));
  }

  /** How many tags the reader sees, as the list shows them. */
  count(actor: Actor | null): Promise<number> {
    return this.tags.countVisible(this.readPolicy.tagScope(actor));
  }

  /** For the sitemap: how many tags public posts carry, and a page of them by id (each with its newest public post's change). */
  countCarriedByPublic(): Promise<number> {
    return this.tags.countCarriedByPublic();
  }

  carriedByPublic(offset: number, limit: number): Promise<TagAddress[]> {
    return this.tags.carriedByPublic(offset, limit);
  }

  findBySlug(slug: string, actor: Actor | null): Promise<Tag | null> {
    return this.tags.findBySlug(slug, this.readPolicy.tagScope(actor));
  }

  /** The tag, when the reader sees it (404 otherwise, as for a tag that does not exist). */
  async get(id: number, actor: Actor | null): Promise<Tag> {
    const tag = await this.tags.findVisible(id, this.readPolicy.tagScope(actor));
    if (!tag) throw DomainError.notFound('Tag', id);
    return tag;
  }

  /** Whether the reader sees this tag, read whatever its state (a loader's row): public, theirs by a post, or they see all. */
  async canSee(tag: Tag, actor: Actor | null): Promise<boolean> {
    const scope = this.readPolicy.tagScope(actor);
    if (tag.isPublic || scope.kind === 'all') return true;
    return scope.kind === 'public-or-own' && this.tags.carriesPostOf(tag.id, scope.ownerId);
  }

  /** For batching: the tags with these ids, in no particular order. */
  findByIds(ids: readonly number[]): Promise<Tag[]> {
    return this.tags.findByIds(ids);
  }

  /** For batching (Post.tags): each post's tags, by slug, in one statement. */
  tagsOfPosts(postIds: readonly number[]): Promise<Map<number, Tag[]>> {
    return this.tags.tagsOfPosts(postIds);
  }

  async create(input: CreateTagDto, actor: Actor | null): Promise<Tag> {
    const who = this.policy.authorize(actor, 'tags.manage');
    const slug = slugOf(input.name);
    const tag = await this.transactions
      .run(async (manager) => {
        const created = await this.tags.insert({ name: input.name, slug }, manager);
        await this.events.record(manager, event('tagCreated', created));
        await this.audit.record(manager, who, { action: 'tags.create', resource: { type: 'tag', id: created.id }, changes: changesOf(null, created, AUDITED_FIELDS) });
        return created;
      })
      .catch((error: unknown) => {
        throw conflictOnTakenSlug(error, slug);
      });
    this.events.committed();
    return { ...tag, postCount: 0 };
  }

  /** A new name, and the slug derived from it (a taken slug is 409). */
  async update(id: number, input: CreateTagDto, actor: Actor | null, options: WriteOptions = {}): Promise<Tag> {
    const who = this.policy.authorize(actor, 'tags.manage');
    const slug = slugOf(input.name);
    const tag = await this.transactions
      .run(async (manager) => {
        const current = await this.tags.findById(id, manager);
        if (!current) throw DomainError.notFound('Tag', id);
        const updated = await this.tags.updateVersioned(current, { name: input.name, slug }, options.expectedVersion, manager);
        await this.events.record(manager, event('tagUpdated', updated, audienceOfTag(current)));
        await this.audit.record(manager, who, { action: 'tags.update', resource: { type: 'tag', id }, changes: changesOf(current, updated, AUDITED_FIELDS) });
        return { ...updated, postCount: current.postCount, isPublic: current.isPublic };
      })
      .catch((error: unknown) => {
        throw conflictOnTakenSlug(error, slug);
      });
    this.events.committed();
    return tag;
  }

  /** Deletes the tag; the posts that carried it lose it (the foreign key cascades). */
  async delete(id: number, actor: Actor | null): Promise<void> {
    const who = this.policy.authorize(actor, 'tags.manage');
    await this.transactions.run(async (manager) => {
      const current = await this.tags.findById(id, manager);
      if (!current || !(await this.tags.delete(id, manager))) throw DomainError.notFound('Tag', id);
      await this.events.record(manager, event('tagDeleted', { id }, audienceOfTag(current)));
      await this.audit.record(manager, who, { action: 'tags.delete', resource: { type: 'tag', id }, changes: changesOf(current, null, AUDITED_FIELDS) });
    });
    this.events.committed();
  }

  /**
   * Sets a post's tags, in the post's transaction: each name slugified and matched by slug,
   * duplicates collapsed, the ones no tag has yet created (named as given). At most
   * MAX_TAGS_PER_POST (400 naming `tags`); a name without a-z0-9 is 400 too. `replace`: the post
   * may have tags already (a PATCH). A tag made on a non-public post is seen by those who see the
   * post (its TAG_CREATED too) until a public post carries it (announceTagsOf). The tags a
   * `writer` who does not manage tags makes count against RATE_LIMIT_TAGS_MAX (429 RATE_LIMITED,
   * nothing made). Returns the slugs in order.
   */
  async assignToPost(post: PostVisibility & { id: number }, names: readonly string[], manager: Executor, options: { replace: boolean; writer: Actor }): Promise<PostTags> {
    const postId = post.id;
    const wanted = new Map<string, string>();
    for (const name of names) {
      const slug = slugify(name.trim());
      if (slug === '') throw DomainError.badInput(`tags: "${name}" has no letter or digit (a-z, 0-9) to make a slug of`, [{ field: 'tags', message: 'each tag needs a letter or digit (a-z, 0-9)' }]);
      if (!wanted.has(slug)) wanted.set(slug, name.trim());
    }
    if (wanted.size > MAX_TAGS_PER_POST) {
      throw DomainError.badInput(`tags: at most ${MAX_TAGS_PER_POST} per post`, [{ field: 'tags', message: `must name at most ${MAX_TAGS_PER_POST} different tags` }]);
    }
    // A new post without tags costs no statement.
    if (wanted.size === 0 && !options.replace) return { tags: [], tagIds: [] };
    const existing = await this.tags.idsBySlugs([...wanted.keys()], manager);
    await this.countNewTags(options.writer, wanted.size - existing.size);
    const tagIds: number[] = [];
    const created: Tag[] = [];
    for (const [slug, name] of wanted) {
      const id = existing.get(slug);
      if (id !== undefined) {
        tagIds.push(id);
        continue;
      }
      // A new tag is named as written (at most 50 characters, as a tag's name), with its TAG_CREATED.
      const ensured = await this.tags.ensure([...name].slice(0, 50).join(''), slug, post.status === 'published', manager);
      if (ensured.created) {
        await this.events.record(manager, event('tagCreated', ensured.created, this.readPolicy.audienceOf(post)));
        created.push(ensured.created);
      }
      tagIds.push(ensured.id);
    }
    await this.tags.setPostTags(postId, tagIds, manager, options);
    // Tags made by tagging a post: their entries name the post (the post's own entry shows its new tags).
    if (created.length > 0) {
      await this.audit.record(
        manager,
        options.writer,
        ...created.map((tag) => ({ action: 'tags.create' as const, resource: { type: 'tag', id: tag.id }, changes: { ...changesOf(null, tag, AUDITED_FIELDS), postId: { from: null, to: postId } } })),
      );
    }
    return postTags([...wanted.keys()].map((slug, index) => [slug, tagIds[index]]));
  }

  /** Spends `count` new tags from the writer's hourly allowance; all of them or none (RATE_LIMITED). */
  private async countNewTags(writer: Actor, count: number): Promise<void> {
    if (count <= 0 || this.policy.may(writer, 'tags.manage')) return;
    const state = await this.limiter.spend(newTagsKey(writer.id), 'tags', count, this.config.rateLimitTagsMax, NEW_TAGS_WINDOW_S);
    if (state?.exceeded) throw rateLimited(state.resetS);
  }

  /**
   * In the transaction of a write that leaves the post public: its tags that only those who see
   * non-public posts saw until now become public, each announced by a public TAG_CREATED (not
   * again to the editors and admins, who heard the first one).
   */
  async announceTagsOf(postId: number, manager: Executor): Promise<void> {
    const announced = await this.tags.announceTagsOf(postId, manager);
    if (announced.length === 0) return;
    const audience: EventAudience = { ...PUBLIC_AUDIENCE, except: { audience: 'restricted', owner: null } };
    await this.events.record(manager, ...announced.map((tag) => event('tagCreated', tag, audience)));
  }

  /** One post's tags, read in its transaction. */
  async tagsOfPost(postId: number, manager: Executor): Promise<PostTags> {
    return postTags(await this.tags.slugsOfPost(postId, manager));
  }
}

/** A post's tags as a post carries them: their slugs in code-point order, and their ids in the same order. */
export interface PostTags {
  tags: string[];
  tagIds: number[];
}

function postTags(pairs: [slug: string, id: number][]): PostTags {
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { tags: pairs.map(([slug]) => slug), tagIds: pairs.map(([, id]) => id) };
}

/** Who hears of a change to a tag: everyone when it is public, else those who read every non-public post. */
function audienceOfTag(tag: Tag): EventAudience {
  return tag.isPublic ? PUBLIC_AUDIENCE : { audience: 'restricted', owner: null };
}

/** The slug of a tag's name; 400 naming `name` when it has none. */
function slugOf(name: string): string {
  const slug = slugify(name);
  if (slug === '') throw DomainError.badInput('name has no letter or digit (a-z, 0-9) to make a slug of', [{ field: 'name', message: 'must contain a letter or digit (a-z, 0-9)' }]);
  return slug;
}

function conflictOnTakenSlug(error: unknown, slug: string): unknown {
  if (!(error instanceof DomainError) && normalizeError(error).code === 'CONFLICT') return DomainError.conflict(`A tag with the slug "${slug}" already exists`);
  return error;
}
