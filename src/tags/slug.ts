/** The longest slug (the column's length). */
export const SLUG_MAX_LENGTH = 50;

/**
 * A tag's slug from its name (CONTRACT §8): lower-case, each run of characters outside a-z0-9
 * one `-`, without a leading or trailing `-` (at most 50 characters). Empty when the name has
 * no letter or digit of a-z0-9.
 */
export function slugify(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, SLUG_MAX_LENGTH)
    .replace(/^-+|-+$/g, '');
}
