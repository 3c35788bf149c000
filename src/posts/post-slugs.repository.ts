import { Injectable } from '@nestjs/common';
import { POSTS_TAG, recordReadTags } from '../common/cache/read-tags.js';
import { type Executor, Sql } from '../common/persistence/sql.js';
import { sql } from '../common/persistence/sql-template.js';

/** `post_slugs`: every slug a post has or had (the primary key makes them one namespace). */
@Injectable()
export class PostSlugsRepository {
  constructor(private readonly sql: Sql) {}

  /** The slugs taken that start with `prefix` (slugs hold no LIKE wildcard). */
  async takenStartingWith(prefix: string, executor: Executor): Promise<Set<string>> {
    const rows = await this.sql.rows<{ slug: string }>(sql`SELECT slug FROM post_slugs WHERE slug LIKE ${`${prefix}%`}`, executor);
    return new Set(rows.map((row) => row.slug));
  }

  /**
   * Gives the slug to the post unless another has it; true when it is now the post's. A concurrent
   * transaction claiming the same slug makes PostgreSQL wait for it, and then nothing is inserted:
   * no error, so the transaction goes on with another candidate.
   */
  async claim(slug: string, postId: number, executor: Executor): Promise<boolean> {
    const rows = await this.sql.rows(sql`INSERT INTO post_slugs (slug, post_id) VALUES (${slug}, ${postId}) ON CONFLICT (slug) DO NOTHING RETURNING slug`, executor);
    return rows.length === 1;
  }

  /** The post that has or had this slug. */
  async postIdOf(slug: string, executor?: Executor): Promise<number | null> {
    // A cached lookup that found nothing must go when some post takes the slug.
    recordReadTags(POSTS_TAG);
    const [row] = await this.sql.rows<{ post_id: number | string }>(sql`SELECT post_id FROM post_slugs WHERE slug = ${slug}`, executor);
    return row === undefined ? null : Number(row.post_id);
  }

  /** After a slug derived from nothing (`post-{id}`): the row's slug set to the one claimed. */
  async setCurrent(postId: number, slug: string, executor: Executor): Promise<void> {
    await this.sql.rows(sql`UPDATE posts SET slug = ${slug} WHERE id = ${postId}`, executor);
  }
}
