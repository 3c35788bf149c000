import { Injectable, Logger } from '@nestjs/common';
import type { Readable } from 'node:stream';
import type { Actor } from '../common/actor.js';
import { AuthorizationPolicy } from '../auth/authorization-policy.js';
import { type MediaVisibility, ReadPolicy } from '../auth/read-policy.js';
import { ResponseCache } from '../common/cache/response-cache.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { Page, PageRequest } from '../common/pagination/cursor.js';
import type { Executor } from '../common/persistence/sql.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';
import type { WriteOptions } from '../common/persistence/write-options.js';
import { RateLimiter, rateLimited } from '../common/rate-limit/rate-limiter.js';
import { AppConfig } from '../config/app-config.js';
import { event } from '../events/blog-events.js';
import { EventPublisher } from '../events/event-publisher.js';
import { AuditLog, changesOf } from '../audit/audit-log.service.js';
import type { UpdateMediaDto } from './dto/update-media.dto.js';
import type { ImageType } from './image-type.js';
import { Media } from './media.entity.js';
import { mediaFilePath, variantHref } from './media.resource.js';
import { MediaRepository } from './media.repository.js';
import { displayFilename, MediaUploadService, type ReceivedImage } from './media-upload.service.js';
import { MediaStorage, type ByteRange, type StoredObject } from './storage/media-storage.js';

/** A media item's fields its audit entries show (its facts at upload and deletion; alt, caption, focal point when changed). */
const AUDITED_FIELDS = ['filename', 'mimeType', 'size', 'width', 'height', 'alt', 'caption', 'focalPoint', 'uploaderId'] as const satisfies readonly (keyof Media)[];

/** The storage key of an item's original. */
export const originalKey = (id: number) => `media/${id}/original`;
/** The storage key of one of its variants. */
export const variantKey = (id: number, name: string) => `media/${id}/${name}.webp`;
/** A variant's name from its width. */
export const variantName = (width: number) => `w${width}`;

/** What an upload says besides its bytes. */
export interface UploadFields {
  filename?: string | null;
  alt?: string | null;
  caption?: string | null;
}

/** A file to serve: its facts, and its bytes to open (whole or one range). */
export interface MediaFile {
  kind: 'file';
  mimeType: string;
  object: StoredObject;
  isPublic: boolean;
  open(range?: ByteRange): Promise<Readable | null>;
}

/**
 * A variant the item will have but whose making is not over (queued, or given up): the original
 * stands in for it, so that a srcset written before the variants exist never shows a broken image.
 */
export interface PendingVariant {
  kind: 'pending';
  location: string;
}

/** Wakes the variant worker of this instance when an upload is committed (MediaVariantsWorker listens). */
export type VariantWake = () => void;

/**
 * Media (CONTRACT §14): uploads (signed-in writers: posts.write; a read key is refused), the
 * item read as ReadPolicy.mediaScope lets a reader see it, its text and focal point changed by
 * its uploader, editors and admins (posts.edit on the uploader's behalf), deleted with its files
 * unless a post uses it (409 naming the posts the caller sees), and its files served.
 */
@Injectable()
export class MediaService {
  private readonly logger = new Logger('Media');
  private readonly wakes = new Set<VariantWake>();

  constructor(
    private readonly media: MediaRepository,
    private readonly uploads: MediaUploadService,
    private readonly storage: MediaStorage,
    private readonly policy: AuthorizationPolicy,
    private readonly readPolicy: ReadPolicy,
    private readonly transactions: TransactionRunner,
    private readonly limiter: RateLimiter,
    private readonly cache: ResponseCache,
    private readonly events: EventPublisher,
    private readonly config: AppConfig,
    private readonly audit: AuditLog,
  ) {}

  /** The worker's wake-up: called after each committed upload. */
  onUpload(wake: VariantWake): void {
    this.wakes.add(wake);
  }

  /** The names of the variants this instance makes (`w320`, …): the only ones `?variant=` accepts. */
  get variantNames(): string[] {
    return this.config.mediaVariantWidths.map((width) => variantName(Number(width)));
  }

  /**
   * The variants an item of this width has once they are made (each MEDIA_VARIANT_WIDTHS width
   * narrower than it), as a body's srcset names them: known at write time, so a body rendered
   * before the background work is over lists them all and never needs rendering again.
   */
  plannedVariants(media: Pick<Media, 'id' | 'width'>): { href: string; width: number }[] {
    return [...new Set(this.config.mediaVariantWidths.map(Number))]
      .filter((width) => width < media.width)
      .sort((a, b) => a - b)
      .map((width) => ({ href: variantHref(media.id, variantName(width)), width }));
  }

  /**
   * Before a byte is read: the writer may upload (401, 403 for a read key or a role without
   * posts.write) and has uploads left in the window (429 RATE_LIMITED).
   */
  async admit(actor: Actor | null): Promise<Actor> {
    const writer = this.policy.authorize(actor, 'posts.write', actor?.id);
    const state = await this.limiter.count(`uploads:user:${writer.id}`, 'uploads', this.config.rateLimitUploadsMax, this.config.rateLimitWindowS);
    if (state?.exceeded) throw rateLimited(state.resetS);
    return writer;
  }

  /** Receives one file (see MediaUploadService.receive). */
  receive(source: Readable): Promise<ReceivedImage> {
    return this.uploads.receive(source);
  }

  /** Deletes a received file that will not become an item. */
  discard(received: ReceivedImage): Promise<void> {
    return this.uploads.discard(received.cleanKey);
  }

  /**
   * Makes the received file an item: its row and its job in one transaction, in which the cleaned
   * copy is stored under the item's key; if anything fails, the row is not written and the copy
   * is deleted. The temporary copy is deleted either way.
   */
  async create(writer: Actor, received: ReceivedImage, fields: UploadFields): Promise<Media> {
    const alt = checkText(fields.alt, 'alt', 500);
    const caption = checkText(fields.caption, 'caption', 1000);
    let storedKey: string | null = null;
    try {
      const media = await this.transactions.run(async (manager) => {
        const inserted = await this.media.insert(
          { filename: displayFilename(fields.filename, received.mimeType), mimeType: received.mimeType, size: received.size, width: received.width, height: received.height, alt, caption, uploaderId: writer.id },
          manager,
        );
        storedKey = originalKey(inserted.id);
        if (!(await this.storage.move(received.cleanKey, storedKey, received.mimeType))) throw new Error(`The cleaned upload ${received.cleanKey} vanished`);
        await this.media.enqueueVariants(inserted.id, manager);
        // A Media instance: the event log records a payload that is not one as a deletion (ids only).
        const created = Object.assign(new Media(), inserted, { focalPoint: null, variants: [], isPublic: false });
        // A new item is its uploader's and the editors' until a public post uses it.
        await this.events.record(manager, event('mediaCreated', created, this.readPolicy.mediaAudienceOf(created)));
        await this.audit.record(manager, writer, { action: 'media.create', resource: { type: 'media', id: created.id }, changes: changesOf(null, created, AUDITED_FIELDS) });
        return created;
      });
      this.events.committed();
      this.cache.invalidate();
      for (const wake of this.wakes) wake();
      return media;
    } catch (error) {
      if (storedKey !== null) await this.storage.delete(storedKey).catch(() => undefined);
      throw error;
    } finally {
      await this.uploads.discard(received.cleanKey);
    }
  }

  /** The item, when the reader sees it (404 otherwise, as for one that does not exist). */
  async get(id: number, actor: Actor | null): Promise<Media> {
    const media = await this.media.findVisible(id, this.readPolicy.mediaScope(actor));
    if (!media) throw DomainError.notFound('Media', id);
    return (await this.withVariants([media]))[0];
  }

  /** What the reader sees, newest first. */
  async list(request: PageRequest, actor: Actor | null): Promise<Page<Media>> {
    const page = await this.media.visiblePage(request, this.readPolicy.mediaScope(actor));
    page.items = await this.withVariants(page.items);
    return page;
  }

  count(actor: Actor | null): Promise<number> {
    return this.media.countVisible(this.readPolicy.mediaScope(actor));
  }

  /** For batching (Post.coverImage, Query.media): the items with these ids, with their variants, whoever may see them. */
  async findByIds(ids: readonly number[]): Promise<Media[]> {
    return this.withVariants(await this.media.findWithVisibility(ids));
  }

  /** Whether the reader sees this item (a loader's row, read whatever its state). */
  canSee(media: Media, actor: Actor | null): boolean {
    return this.readPolicy.canSeeMedia(actor, this.visibility(media));
  }

  private visibility(media: Media): MediaVisibility {
    return { uploaderId: media.uploaderId, isPublic: media.isPublic ?? false };
  }

  /** New alt, caption or focal point (uploader, editors, admins; others who see it 403, others 404). */
  async update(id: number, input: UpdateMediaDto, actor: Actor | null, options: WriteOptions = {}): Promise<Media> {
    if (input.alt === undefined && input.caption === undefined && input.focalPoint === undefined) {
      throw DomainError.badInput('Give at least one of alt, caption and focalPoint', [{ field: 'alt', message: 'give at least one of alt, caption and focalPoint' }]);
    }
    const updated = await this.transactions.run(async (manager) => {
      const { current, writer } = await this.writable(id, actor, manager);
      const changes: Partial<Media> = {};
      if (input.alt !== undefined) changes.alt = input.alt;
      if (input.caption !== undefined) changes.caption = input.caption;
      if (input.focalPoint !== undefined) await this.media.setFocalPoint(id, input.focalPoint, manager);
      const written = await this.media.updateVersioned(current, changes, options.expectedVersion, manager);
      const focalPoint = input.focalPoint === undefined ? (current.focalPoint ?? null) : input.focalPoint && { x: input.focalPoint.x, y: input.focalPoint.y };
      const variants = (await this.media.variantsOf([id], manager)).get(id) ?? [];
      // A Media instance, as in create: the event carries the item as the write left it.
      const changed = Object.assign(new Media(), written, { focalPoint, variants, isPublic: current.isPublic });
      await this.events.record(manager, event('mediaUpdated', changed, this.readPolicy.mediaAudienceOf(this.visibility(changed))));
      await this.audit.record(manager, writer, { action: 'media.update', resource: { type: 'media', id }, changes: changesOf(current, changed, ['alt', 'caption', 'focalPoint']) });
      return changed;
    });
    this.events.committed();
    this.cache.invalidate();
    return updated;
  }

  /**
   * Deletes the item and its files (uploader, editors, admins). While a post uses it: 409
   * CONFLICT naming the posts the caller may see (none named when they see none of them); while
   * it is an avatar (public, as users are): 409 naming the users.
   */
  async delete(id: number, actor: Actor | null): Promise<void> {
    const variants = await this.transactions.run(async (manager) => {
      const { current, writer } = await this.writable(id, actor, manager);
      const users = await this.media.postsUsing(id, manager);
      if (users.length > 0) {
        const seen = users.filter((post) => this.readPolicy.canSeePost(actor, post)).map((post) => post.id);
        const named = seen.length > 0 ? `: ${seen.map((postId) => `/posts/${postId}`).join(', ')}` : '';
        throw DomainError.conflict(`The media item is used by ${users.length === 1 ? 'a post' : `${users.length} posts`}${named}; change their cover or body first`);
      }
      const avatars = await this.media.avatarsOf(id, manager);
      if (avatars.length > 0) {
        throw DomainError.conflict(`The media item is the avatar of ${avatars.map((userId) => `/users/${userId}`).join(', ')}; change the avatarUrl first`);
      }
      const names = await this.media.variantNames(id);
      if (!(await this.media.delete(id, manager))) throw DomainError.notFound('Media', id);
      await this.events.record(manager, event('mediaDeleted', { id, uploaderId: current.uploaderId }, this.readPolicy.mediaAudienceOf(this.visibility(current))));
      await this.audit.record(manager, writer, { action: 'media.delete', resource: { type: 'media', id }, changes: changesOf(current, null, AUDITED_FIELDS) });
      return names;
    });
    this.events.committed();
    this.cache.invalidate();
    await this.deleteFiles(id, variants);
  }

  /**
   * For a user's deletion, in its transaction (CONTRACT §14): the uploads another user's post
   * uses pass to that post's author (MediaRepository.passUsedByOthers); the rest are deleted
   * with their rows, each with its MEDIA_DELETED. Returns what deletes their files, to call
   * after the commit (the sweep removes what it misses).
   */
  async eraseUploadsOf(userId: number, manager: Executor): Promise<() => Promise<void>> {
    await this.media.passUsedByOthers(userId, manager);
    const items = await this.media.uploadedBy(userId, manager);
    if (items.length === 0) return () => Promise.resolve();
    const variants = await this.media.variantsOf(
      items.map((item) => item.id),
      manager,
    );
    for (const item of items) await this.media.delete(item.id, manager);
    await this.events.record(manager, ...items.map((item) => event('mediaDeleted', { id: item.id, uploaderId: item.uploaderId }, this.readPolicy.mediaAudienceOf(this.visibility(item)))));
    return async () => {
      for (const item of items) await this.deleteFiles(item.id, (variants.get(item.id) ?? []).map((variant) => variant.name));
    };
  }

  /** Deletes an item's files (its original and the variants it had). */
  async deleteFiles(id: number, variantNames: readonly string[]): Promise<void> {
    for (const key of [originalKey(id), ...variantNames.map((name) => variantKey(id, name))]) {
      await this.storage.delete(key).catch((error: unknown) => this.logger.warn(`Could not delete ${key}: ${String(error)}`));
    }
  }

  /**
   * The file of an item the reader sees (404 otherwise): the original, or one variant by name
   * (400 for a name that is none of MEDIA_VARIANT_WIDTHS'; 404 for one not narrower than the
   * original, which is never made; pending while it is not made yet).
   */
  async file(id: number, variant: string | undefined, actor: Actor | null): Promise<MediaFile | PendingVariant> {
    if (variant !== undefined && !this.variantNames.includes(variant)) {
      throw DomainError.badInput(`variant must be one of ${this.variantNames.join(', ')}`, [{ field: 'variant', message: `must be one of ${this.variantNames.join(', ')}` }]);
    }
    const media = await this.media.findVisible(id, this.readPolicy.mediaScope(actor));
    if (!media) throw DomainError.notFound('Media', id);
    const key = variant === undefined ? originalKey(id) : variantKey(id, variant);
    const object = await this.storage.stat(key);
    if (!object && variant !== undefined && this.plannedVariants(media).some((planned) => variantName(planned.width) === variant)) {
      return { kind: 'pending', location: mediaFilePath(id) };
    }
    if (!object) throw variant === undefined ? DomainError.notFound('Media', id) : new DomainError('NOT_FOUND', `Media ${id} has no variant ${variant}: it is not narrower than the original`);
    return {
      kind: 'file',
      mimeType: variant === undefined ? media.mimeType : 'image/webp',
      object,
      isPublic: media.isPublic ?? false,
      open: (range) => this.storage.read(key, range),
    };
  }

  /**
   * For a post's writer (in the post's transaction): the cover they name exists and they may
   * see it, else 400 naming coverImageId.
   */
  async checkCover(coverImageId: number, writer: Actor, manager: Executor): Promise<void> {
    const media = await this.media.findVisible(coverImageId, this.readPolicy.mediaScope(writer), manager);
    if (!media) {
      throw DomainError.badInput(`coverImageId: there is no media item ${coverImageId} you may use`, [{ field: 'coverImageId', message: 'must be the id of a media item you may see' }]);
    }
  }

  /**
   * For a post's writer (in the post's transaction): the items among these ids they may see, by
   * id (the images their body may show as media, with plannedVariants as their srcset).
   */
  async usableIn(ids: readonly number[], writer: Actor, manager: Executor): Promise<Map<number, Media>> {
    const items = await this.media.visibleAmong(ids, this.readPolicy.mediaScope(writer), manager);
    return new Map(items.map((item) => [item.id, item]));
  }

  /** Records the items a post's body shows (ids from usableIn), replacing the earlier set, in the post's transaction. */
  recordBodyMedia(postId: number, mediaIds: readonly number[], manager: Executor): Promise<void> {
    return this.media.replaceBodyMedia(postId, mediaIds, manager);
  }

  /**
   * For a user's avatar: an avatarUrl that is a media path (`/media/{id}`) names an item that
   * exists and the writer may see (it is public from then on), else 400 naming avatarUrl. Any
   * other URL is not looked at.
   */
  async checkAvatar(avatarUrl: string, writer: Actor | null, manager?: Executor): Promise<void> {
    const id = /^\/media\/([1-9][0-9]{0,9})$/.exec(avatarUrl)?.[1];
    if (id === undefined) return;
    const media = Number(id) > 2147483647 ? null : await this.media.findVisible(Number(id), this.readPolicy.mediaScope(writer), manager);
    if (!media) {
      throw DomainError.badInput(`avatarUrl: there is no media item ${id} you may use`, [{ field: 'avatarUrl', message: 'must be the path of a media item you may see' }]);
    }
  }

  /** The item, for a write, and its writer: 404 unless the writer sees it, 403 unless they may change it. */
  private async writable(id: number, actor: Actor | null, manager: Executor): Promise<{ current: Media; writer: Actor }> {
    const writer = this.policy.authorize(actor, 'posts.write', actor?.id);
    const current = await this.media.findVisible(id, this.readPolicy.mediaScope(writer), manager);
    if (!current) throw DomainError.notFound('Media', id);
    this.policy.authorize(writer, 'posts.edit', current.uploaderId);
    return { current, writer };
  }

  /**
   * One page of what the user uploaded, oldest first (keyset-paged on the id), with their
   * variants: metadata only, for their personal-data export, whose service has authorized the reader.
   */
  async uploadedPage(uploaderId: number, request: PageRequest): Promise<Page<Media>> {
    const page = await this.media.page(request, 'asc', { column: 'uploaderId', value: uploaderId });
    page.items = await this.withVariants(page.items);
    return page;
  }

  private async withVariants(items: Media[]): Promise<Media[]> {
    if (items.length === 0) return items;
    const variants = await this.media.variantsOf(items.map((item) => item.id));
    return items.map((item) => Object.assign(item, { variants: variants.get(item.id) ?? [], focalPoint: item.focalPoint ?? null }));
  }
}

/** A multipart field's text (alt, caption): at most `max` characters; blank is none. */
function checkText(value: string | null | undefined, field: string, max: number): string | null {
  if (value === undefined || value === null || value === '') return null;
  if ([...value].length > max) throw DomainError.badInput(`${field} must be at most ${max} characters`, [{ field, message: `must be at most ${max} characters` }]);
  return value;
}

export type { ImageType };
