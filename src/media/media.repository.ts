import { Injectable } from '@nestjs/common';
import type { PostScope, PostStatus } from '../auth/read-policy.js';
import { type Page, type PageRequest, toPage } from '../common/pagination/cursor.js';
import { ResourceRepository } from '../common/persistence/resource-repository.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { type Fragment, sql } from '../common/persistence/sql-template.js';
import { Media } from './media.entity.js';
import { variantHref } from './media.resource.js';
import type { MediaVariant } from './models/media-parts.model.js';

/**
 * A media item the public sees (CONTRACT §14): a published post uses it as its cover or shows it
 * in its body (`post_media`), or it is a user's avatar (`avatar_url` `/media/{id}`).
 */
const PUBLIC_MEDIA = [
  "(EXISTS (SELECT 1 FROM posts cp WHERE cp.cover_image_id = t.id AND cp.status = 'published')",
  "EXISTS (SELECT 1 FROM post_media pm JOIN posts bp ON bp.id = pm.post_id WHERE pm.media_id = t.id AND bp.status = 'published')",
  "EXISTS (SELECT 1 FROM users au WHERE au.avatar_url LIKE '/media/%' AND au.avatar_url = '/media/' || CAST(t.id AS varchar(20))))",
].join(' OR ');
const PUBLIC_MEDIA_SQL = sql.raw(PUBLIC_MEDIA);

/** The media a reader with this scope sees, as a condition on `t`; null for every item. */
function visibleTo(scope: PostScope): Fragment | null {
  if (scope.kind === 'all') return null;
  if (scope.kind === 'public') return PUBLIC_MEDIA_SQL;
  return sql`(t.uploader_id = ${scope.ownerId} OR ${PUBLIC_MEDIA_SQL})`;
}

function visibleWhere(scope: PostScope, ...conditions: Fragment[]): Fragment {
  const visible = visibleTo(scope);
  return sql.where(visible ? [...conditions, visible] : conditions);
}

/** A variant row, as the worker writes it. */
export interface NewVariant {
  mediaId: number;
  name: string;
  width: number;
  height: number;
  mimeType: string;
  size: number;
}

/** A post that uses a media item, as the read policy looks at it. */
export interface MediaUse {
  id: number;
  status: PostStatus;
  authorId: number;
}

/**
 * The media's SQL: the items (with their focal point and whether they are public read in the
 * same statement), their variants, the posts that use them and the queue of variants to make.
 */
@Injectable()
export class MediaRepository extends ResourceRepository<Media> {
  constructor(db: Sql) {
    super(db, Media, [
      {
        property: 'focalPoint',
        name: 'focal_point',
        expression: (alias) => `CASE WHEN ${alias}.focal_x IS NULL OR ${alias}.focal_y IS NULL THEN NULL ELSE CAST(${alias}.focal_x AS varchar(32)) || ' ' || CAST(${alias}.focal_y AS varchar(32)) END`,
        read: (value) => focalPointOf(value),
      },
      { property: 'isPublic', name: 'is_public', expression: () => `CASE WHEN ${PUBLIC_MEDIA} THEN 1 ELSE 0 END`, read: (value) => Number(value) === 1 },
    ]);
  }

  /** The item with this id, if the reader sees it. */
  async findVisible(id: number, scope: PostScope, executor?: Executor): Promise<Media | null> {
    this.recordReads({ kind: 'ids', ids: [id] });
    const [row] = await this.sql.rows<Record<string, unknown>>(sql`SELECT ${this.select} FROM ${this.from}${visibleWhere(scope, sql`t.id = ${id}`)}`, executor);
    return row ? this.fromRow(row) : null;
  }

  /** What the reader sees, newest first, keyset-paged on the id. */
  async visiblePage(request: PageRequest, scope: PostScope): Promise<Page<Media>> {
    this.recordReads({ kind: 'list' });
    const { after } = request;
    const where = after === undefined ? visibleWhere(scope) : visibleWhere(scope, sql`t.id < ${after}`);
    const page = toPage(this.map(await this.sql.rows(sql`SELECT ${this.select} FROM ${this.from}${where} ORDER BY t.id DESC LIMIT ${request.limit + 1}`)), request.limit);
    if (after !== undefined) page.hasPrevious = () => this.anyFrom(after, scope);
    return page;
  }

  /** How many items the reader sees (MediaConnection.totalCount). */
  async countVisible(scope: PostScope): Promise<number> {
    this.recordReads({ kind: 'list' });
    const [row] = await this.sql.rows<{ count: number | string }>(sql`SELECT COUNT(*) AS count FROM media t${visibleWhere(scope)}`);
    return Number(row.count);
  }

  private async anyFrom(after: number, scope: PostScope): Promise<boolean> {
    this.recordReads({ kind: 'list' });
    return (await this.sql.rows(sql`SELECT 1 AS found FROM media t${visibleWhere(scope, sql`t.id >= ${after}`)} LIMIT 1`)).length > 0;
  }

  /** The items with these ids (for batching), each with whether it is public, in no particular order. */
  async findWithVisibility(ids: readonly number[]): Promise<Media[]> {
    if (ids.length === 0) return [];
    this.recordReads({ kind: 'ids', ids });
    return this.map(await this.sql.rows(sql`SELECT ${this.select} FROM ${this.from} WHERE t.id IN (${sql.in(ids)})`));
  }

  /** The variants of these items, by item, narrowest first. */
  async variantsOf(mediaIds: readonly number[], executor?: Executor): Promise<Map<number, MediaVariant[]>> {
    this.recordReads({ kind: 'list' });
    const byMedia = new Map<number, MediaVariant[]>(mediaIds.map((id) => [id, []]));
    if (mediaIds.length === 0) return byMedia;
    const statement = sql`SELECT media_id, name, width, height, mime_type, size FROM media_variants WHERE media_id IN (${sql.in(mediaIds)}) ORDER BY media_id, width, name`;
    const rows = await this.sql.rows<{ media_id: number | string; name: string; width: number | string; height: number | string; mime_type: string; size: number | string }>(statement, executor);
    for (const row of rows) {
      const mediaId = Number(row.media_id);
      byMedia.get(mediaId)?.push({ name: row.name, width: Number(row.width), height: Number(row.height), mimeType: row.mime_type, size: Number(row.size), href: variantHref(mediaId, row.name) });
    }
    return byMedia;
  }

  /** The items with these ids the reader sees (the images a writer's body shows), in no particular order. */
  async visibleAmong(ids: readonly number[], scope: PostScope, executor?: Executor): Promise<Media[]> {
    if (ids.length === 0) return [];
    this.recordReads({ kind: 'ids', ids });
    return this.map(await this.sql.rows(sql`SELECT ${this.select} FROM ${this.from}${visibleWhere(scope, sql`t.id IN (${sql.in(ids)})`)}`, executor));
  }

  /** Records the items a post's body shows, replacing those it showed before. */
  async replaceBodyMedia(postId: number, mediaIds: readonly number[], executor: Executor): Promise<void> {
    await this.sql.written(sql`DELETE FROM post_media WHERE post_id = ${postId} RETURNING media_id`, executor);
    if (mediaIds.length === 0) return;
    const insert = sql`INSERT INTO post_media (post_id, media_id) SELECT CAST(${postId} AS integer), t.id FROM media t WHERE t.id IN (${sql.in(mediaIds)}) RETURNING media_id`;
    await this.sql.written(insert, executor);
  }

  /** The posts that use the item (as their cover or in their body), whatever their status, by id. */
  async postsUsing(mediaId: number, executor?: Executor): Promise<MediaUse[]> {
    this.recordReads({ kind: 'list' });
    const rows = await this.sql.rows<{ id: number | string; status: PostStatus; author_id: number | string }>(
      sql`SELECT id, status, author_id FROM posts WHERE cover_image_id = ${mediaId} OR id IN (SELECT post_id FROM post_media WHERE media_id = ${mediaId}) ORDER BY id`,
      executor,
    );
    return rows.map((row) => ({ id: Number(row.id), status: row.status, authorId: Number(row.author_id) }));
  }

  /** The users whose avatar the item is (`avatar_url` `/media/{id}`), by id. */
  async avatarsOf(mediaId: number, executor?: Executor): Promise<number[]> {
    this.recordReads({ kind: 'list' });
    const rows = await this.sql.rows<{ id: number | string }>(sql`SELECT id FROM users WHERE avatar_url LIKE '/media/%' AND avatar_url = ${`/media/${mediaId}`} ORDER BY id`, executor);
    return rows.map((row) => Number(row.id));
  }

  /**
   * For a user's deletion: their uploads that another user's post uses (as its cover or in its body) pass to the
   * author of the first such post (by id), who keeps seeing and changing them. Returns their ids.
   */
  async passUsedByOthers(userId: number, executor: Executor): Promise<number[]> {
    const other = sql`FROM posts op WHERE (op.cover_image_id = media.id OR EXISTS (SELECT 1 FROM post_media opm WHERE opm.post_id = op.id AND opm.media_id = media.id)) AND op.author_id <> ${userId}`;
    const statement = sql`UPDATE media SET uploader_id = (SELECT op.author_id ${other} ORDER BY op.id LIMIT 1) WHERE uploader_id = ${userId} AND EXISTS (SELECT 1 ${other}) RETURNING id`;
    return (await this.sql.written<{ id: number | string }>(statement, executor)).map((row) => Number(row.id));
  }

  /** The items this user uploaded, with whether they are public, by id. */
  async uploadedBy(userId: number, executor: Executor): Promise<Media[]> {
    this.recordReads({ kind: 'list' });
    return this.map(await this.sql.rows(sql`SELECT ${this.select} FROM ${this.from} WHERE t.uploader_id = ${userId} ORDER BY t.id`, executor));
  }

  /** Sets (or with nulls clears) the focal point; bumps nothing else (the write that calls it does). */
  async setFocalPoint(id: number, point: { x: number; y: number } | null, executor: Executor): Promise<void> {
    await this.sql.written(sql`UPDATE media SET focal_x = ${point?.x ?? null}, focal_y = ${point?.y ?? null} WHERE id = ${id} RETURNING id`, executor);
  }

  /** Queues the making of an item's variants (in the upload's transaction). */
  async enqueueVariants(mediaId: number, executor: Executor): Promise<void> {
    await this.sql.written(sql`INSERT INTO media_jobs (media_id, attempts, claimed_at, created_at) VALUES (${mediaId}, 0, NULL, ${this.sql.timestamp(new Date())}) RETURNING media_id`, executor);
  }

  /**
   * Claims up to `limit` queued items, oldest first: those never claimed, and those whose claim
   * is older than `staleBefore` (an instance that died at work). One statement: on PostgreSQL the
   * rows another instance is claiming are skipped (FOR UPDATE SKIP LOCKED), so each claim is one
   * instance's; SQLite has one writer. Returns the media ids claimed.
   */
  async claimJobs(limit: number, now: Date, staleBefore: Date): Promise<number[]> {
    const lock = sql.raw(this.sql.dialect.lockRows({ skipLocked: true }));
    const due = sql`SELECT media_id FROM media_jobs WHERE claimed_at IS NULL OR claimed_at < ${this.sql.timestamp(staleBefore)} ORDER BY created_at, media_id LIMIT ${limit}${lock}`;
    const statement = sql`UPDATE media_jobs SET claimed_at = ${this.sql.timestamp(now)}, attempts = attempts + 1 WHERE media_id IN (${due}) RETURNING media_id`;
    return (await this.sql.written<{ media_id: number | string }>(statement)).map((row) => Number(row.media_id));
  }

  /** Gives a claimed job back to the queue (this instance is stopping): any instance claims it next. */
  async releaseJob(mediaId: number): Promise<void> {
    await this.sql.written(sql`UPDATE media_jobs SET claimed_at = NULL WHERE media_id = ${mediaId} RETURNING media_id`);
  }

  /** The job is done (or given up): its row goes. */
  async finishJob(mediaId: number): Promise<void> {
    await this.sql.written(sql`DELETE FROM media_jobs WHERE media_id = ${mediaId} RETURNING media_id`);
  }

  /** How many times the item's job was claimed (null: no job). */
  async jobAttempts(mediaId: number): Promise<number | null> {
    const [row] = await this.sql.rows<{ attempts: number | string }>(sql`SELECT attempts FROM media_jobs WHERE media_id = ${mediaId}`);
    return row ? Number(row.attempts) : null;
  }

  /** Records a variant once: a second writer of the same name changes nothing (false). */
  async insertVariant(variant: NewVariant): Promise<boolean> {
    const now = this.sql.timestamp(new Date());
    const statement = sql`INSERT INTO media_variants (media_id, name, width, height, mime_type, size, created_at) VALUES (${variant.mediaId}, ${variant.name}, ${variant.width}, ${variant.height}, ${variant.mimeType}, ${variant.size}, ${now}) ON CONFLICT (media_id, name) DO NOTHING RETURNING name`;
    return (await this.sql.written(statement)).length > 0;
  }

  /** Which of these ids are items (for the sweep of files whose item is gone). */
  async existingIds(ids: readonly number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.sql.rows<{ id: number | string }>(sql`SELECT id FROM media WHERE id IN (${sql.in(ids)})`);
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** The names of the variants an item has. */
  async variantNames(mediaId: number): Promise<string[]> {
    return (await this.sql.rows<{ name: string }>(sql`SELECT name FROM media_variants WHERE media_id = ${mediaId}`)).map((row) => row.name);
  }
}

function focalPointOf(value: unknown): { x: number; y: number } | null {
  if (typeof value !== 'string') return null;
  const [x, y] = value.split(' ').map(Number);
  return Number.isFinite(x) && Number.isFinite(y) ? { x, y } : null;
}
