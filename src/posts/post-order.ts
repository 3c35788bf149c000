import { createHash } from 'node:crypto';
import { DomainError } from '../common/errors/domain-error.js';
import { MAX_INT32 } from '../common/validation/limits.js';

/** `?sort=` of GET /posts, as clients spell it. */
export const POST_SORTS = ['-publishedAt', 'publishedAt', '-updatedAt', 'title', 'relevance'] as const;
export type PostSort = (typeof POST_SORTS)[number];

/** The key a list is ordered by (then the id, the same way): what its cursors carry. */
export type PostOrderKey = 'time' | 'title' | 'rank' | 'id';

/**
 * How one order reads the posts. Public posts by publication use idx_posts_public (the time of
 * their translation group's first publication, CONTRACT §15); the other
 * states have no publication time (a draft never published has none), so their "publication"
 * orders are by creation, that is by id, newest (or oldest) first, as the lists of one state
 * have always been.
 */
export interface PostOrderPlan {
  sort: PostSort;
  key: PostOrderKey;
  /** The column of a time or title key (over `t`); `RANK` for the rank. */
  column: string | null;
  descending: boolean;
}

export function orderPlan(sort: PostSort, publicList: boolean): PostOrderPlan {
  switch (sort) {
    case '-publishedAt':
      return publicList ? { sort, key: 'time', column: 't.group_published_at', descending: true } : { sort, key: 'id', column: null, descending: true };
    case 'publishedAt':
      return publicList ? { sort, key: 'time', column: 't.group_published_at', descending: false } : { sort, key: 'id', column: null, descending: false };
    case '-updatedAt':
      return { sort, key: 'time', column: 't.updated_at', descending: true };
    case 'title':
      return { sort, key: 'title', column: 't.title', descending: false };
    case 'relevance':
      return { sort, key: 'rank', column: 'RANK', descending: true };
  }
}

/** Where a page starts: after the post with this id and this key (its time, title or rank). */
export interface PostKeyset {
  id: number;
  key: Date | string | number | null;
}

const PREFIX = 's1';

/** The filters a cursor belongs to, as a short fingerprint: a cursor is taken only by the list that issued it. */
export function listFingerprint(filters: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 10);
}

/**
 * A cursor of a filtered or sorted list: base64url of `s1:<sort>:<fingerprint>:<id>:<key>`
 * (a time in milliseconds, a rank as its shortest exact decimal, a title as it is).
 */
export function encodePostCursor(sort: PostSort, fingerprint: string, id: number, key: PostKeyset['key']): string {
  const text = key instanceof Date ? String(key.getTime()) : key === null ? '' : String(key);
  return Buffer.from(`${PREFIX}:${POST_SORTS.indexOf(sort)}:${fingerprint}:${id}:${text}`).toString('base64url');
}

const invalid = (field: string, message: string) => DomainError.badInput(`${field} ${message}`, [{ field, message }]);

/** The keyset of a cursor issued by the list with this sort and fingerprint; 400 naming `field` otherwise. */
export function decodePostCursor(cursor: string, plan: PostOrderPlan, fingerprint: string, field: string): PostKeyset {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^s1:(\d):([\w-]{10}):([1-9]\d{0,9}):([\s\S]*)$/u.exec(text);
  // A forged key (a title) holding NUL would reach SQL, which PostgreSQL refuses with an error: no title holds one.
  if (!match || Buffer.from(text).toString('base64url') !== cursor || text.includes('\u0000')) throw invalid(field, 'is not a cursor this service issued');
  const id = Number(match[3]);
  if (id > MAX_INT32) throw invalid(field, 'is not a cursor this service issued');
  if (POST_SORTS[Number(match[1])] !== plan.sort) throw invalid(field, 'belongs to a list in another order');
  if (match[2] !== fingerprint) throw invalid(field, 'belongs to a list with other filters');
  const raw = match[4];
  switch (plan.key) {
    case 'id':
      return { id, key: null };
    case 'title':
      return { id, key: raw };
    case 'time': {
      const time = /^\d{1,15}$/.test(raw) ? new Date(Number(raw)) : null;
      if (!time || Number.isNaN(time.getTime())) throw invalid(field, 'is not a cursor this service issued');
      return { id, key: time };
    }
    case 'rank': {
      const rank = raw === '' ? NaN : Number(raw);
      if (!Number.isFinite(rank)) throw invalid(field, 'is not a cursor this service issued');
      return { id, key: rank };
    }
  }
}

/** The pattern of these cursors (base64url of `s1:`…), for the OpenAPI document. */
export const POST_CURSOR_PATTERN = '^czE6[A-Za-z0-9_-]{8,1400}$';
