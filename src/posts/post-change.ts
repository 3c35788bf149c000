import type { PostStatus } from '../auth/read-policy.js';
import { DomainError } from '../common/errors/domain-error.js';
import type { PostTags } from '../tags/tags.service.js';
import type { BodyFormat } from '../content/body-format.js';

/** A change to a post, as the one write path takes it (a PATCH, a restore, the schedule, the trash). */
export interface PostChange {
  title?: string;
  body?: string;
  bodyFormat?: BodyFormat;
  /** A new slug (the former one keeps finding the post). */
  slug?: string;
  /** The excerpt as given; null: derived from the body again. */
  excerpt?: string | null;
  metaTitle?: string | null;
  metaDescription?: string | null;
  canonicalUrl?: string | null;
  /** A new cover (checked by MediaService.checkCover); null: none. */
  coverImageId?: number | null;
  status?: PostStatus;
  /** Its language (canonical, supported); another post of its group in it is a CONFLICT. */
  locale?: string;
  publishAt?: Date | null;
  /** For a scheduled publication: the time it was due, not the time it ran. */
  publishedAt?: Date;
  /** Its tags as they now are (set in the same transaction), shown in its events. */
  tags?: PostTags;
}

/**
 * publishAt as it is to be stored: a scheduled post has one, in the future (given, or the one it
 * already had); a post in review may have one (given in the future, or kept; null clears it),
 * used when it is approved (CONTRACT §16); given with any other status it is 400.
 */
export function publishAtOf(status: PostStatus, given: Date | null | undefined, kept: Date | null, now: Date): Date | null {
  if (status === 'trashed') throw DomainError.badInput('status "trashed" is reached by DELETE', [{ field: 'status', message: 'must be "draft", "in_review", "scheduled" or "published"' }]);
  if (status === 'in_review') {
    if (given === null) return null;
    if (given !== undefined && given.getTime() <= now.getTime()) {
      throw DomainError.badInput('publishAt must be in the future', [{ field: 'publishAt', message: 'must be a date-time in the future' }]);
    }
    return given ?? kept;
  }
  if (status !== 'scheduled') {
    if (given != null) throw DomainError.badInput('publishAt is only taken with status "scheduled" or "in_review"', [{ field: 'publishAt', message: 'is only taken with status "scheduled" or "in_review"' }]);
    return null;
  }
  const publishAt = given ?? kept;
  if (!publishAt || publishAt.getTime() <= now.getTime()) {
    throw DomainError.badInput('status "scheduled" needs publishAt in the future', [{ field: 'publishAt', message: 'must be a date-time in the future' }]);
  }
  return publishAt;
}
