import { Injectable } from '@nestjs/common';
import { Sql, type Executor } from '../common/persistence/sql.js';
import { sql } from '../common/persistence/sql-template.js';

/** A title as a slug (CONTRACT §13): diacritics folded, other runs one "-", at most 120 characters; '' when nothing is left. */
export function slugify(title: string): string {
  const folded = title
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const slug = folded.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return slug.length <= 120 ? slug : slug.slice(0, 120).replace(/-[^-]*$/, '').replace(/-+$/, '');
}

/**
 * A post's slugs: the current one and its former ones share one namespace (table post_slugs).
 * TODO(slugs lane): uniqueness under concurrent writes, given slugs (409), PATCH, lookups.
 */
@Injectable()
export class PostSlugs {
  constructor(private readonly db: Sql) {}

  /** A slug made from the title that no post has or had. */
  async freeSlugFor(title: string, executor: Executor): Promise<string> {
    const base = slugify(title) || 'post';
    const taken = new Set(
      (await this.db.rows<{ slug: string }>(sql`SELECT slug FROM post_slugs WHERE slug = ${base} OR slug LIKE ${`${base}-%`}`, executor)).map((row) => row.slug),
    );
    if (!taken.has(base)) return base;
    for (let n = 2; ; n += 1) if (!taken.has(`${base}-${n}`)) return `${base}-${n}`;
  }

  /** Records that the post has (or had) this slug. */
  async record(postId: number, slug: string, executor: Executor): Promise<void> {
    await this.db.rows(sql`INSERT INTO post_slugs (slug, post_id) VALUES (${slug}, ${postId})`, executor);
  }
}
