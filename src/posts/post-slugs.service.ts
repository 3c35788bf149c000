import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error.js';
import type { Executor } from '../common/persistence/sql.js';
import { PostSlugsRepository } from './post-slugs.repository.js';

/** The longest slug (CONTRACT §13). */
export const MAX_SLUG_LENGTH = 120;

/** A title as a slug (CONTRACT §13): diacritics folded, other runs one "-", at most 120 characters; '' when nothing is left. */
export function slugify(title: string): string {
  const folded = title
    .replace(/ß/g, 'ss')
    .replace(/[øØ]/g, 'o')
    .replace(/[łŁ]/g, 'l')
    .replace(/[đĐ]/g, 'd')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[œŒ]/g, 'oe')
    .replace(/[þÞ]/g, 'th')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  return fitted(folded.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, ''), MAX_SLUG_LENGTH);
}

/** A slug cut to `max` characters at a `-` where it can be, without a trailing `-`. */
function fitted(slug: string, max: number): string {
  if (slug.length <= max) return slug;
  const cut = slug.slice(0, max);
  const atWord = slug[max] === '-' ? cut : cut.replace(/-[^-]*$/, '');
  return (atWord === '' ? cut : atWord).replace(/-+$/, '');
}

/** The n-th candidate of a base: `base`, `base-2`, `base-3`…, each within the length limit. */
const candidate = (base: string, n: number): string => (n === 1 ? base : `${fitted(base, MAX_SLUG_LENGTH - String(n).length - 1)}-${n}`);

const taken = (slug: string) =>
  new DomainError('CONFLICT', `The slug "${slug}" is taken by another post`, [{ field: 'slug', message: `"${slug}" is taken by another post` }]);

/**
 * A post's slugs (CONTRACT §13): the current one and the former ones share one namespace, so an
 * old address keeps finding its post. A slug made from the title takes the first free of `base`,
 * `base-2`…; a given one that another post has or had is 409.
 */
@Injectable()
export class PostSlugs {
  constructor(private readonly slugs: PostSlugsRepository) {}

  /** The slug a new post starts with: the one given, or the title's (free when read; `claim` makes it sure). */
  async proposeFor(title: string, given: string | undefined, executor: Executor): Promise<string> {
    if (given !== undefined) return given;
    const base = slugify(title);
    // Nothing of the title is left: the post is `post-{id}`, known once it is inserted.
    if (base === '') return '';
    return this.firstFree(base, executor);
  }

  /**
   * Makes the new post's slug its own: the proposed one, or (when a concurrent write took it
   * meanwhile, or it waits for the id) the next free. Returns the slug the post has; 409 for a
   * given one that is taken.
   */
  async claimFor(postId: number, proposed: string, title: string, given: string | undefined, executor: Executor): Promise<string> {
    if (proposed !== '' && (await this.slugs.claim(proposed, postId, executor))) return proposed;
    if (given !== undefined) throw taken(given);
    const base = slugify(title) || `post-${postId}`;
    for (;;) {
      const slug = await this.firstFree(base, executor);
      if (await this.slugs.claim(slug, postId, executor)) {
        await this.slugs.setCurrent(postId, slug, executor);
        return slug;
      }
    }
  }

  /** PATCH: the post takes a new slug (or one it had before); 409 when another post has or had it. */
  async change(postId: number, slug: string, executor: Executor): Promise<void> {
    if (await this.slugs.claim(slug, postId, executor)) return;
    if ((await this.slugs.postIdOf(slug, executor)) !== postId) throw taken(slug);
  }

  /** The post that has or had this slug. */
  postIdOf(slug: string): Promise<number | null> {
    return this.slugs.postIdOf(slug);
  }

  private async firstFree(base: string, executor: Executor): Promise<string> {
    const used = await this.slugs.takenStartingWith(fitted(base, MAX_SLUG_LENGTH - 8), executor);
    for (let n = 1; ; n += 1) if (!used.has(candidate(base, n))) return candidate(base, n);
  }
}
