import type { MigrationInterface, QueryRunner } from 'typeorm';

const BATCH = 500;

// Frozen copies of the rules of this release (a migration never changes with the code it predates):
// src/posts/post-slugs.service.ts slugify and src/content/plain-text.ts.
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char]);

function slugify(title: string): string {
  const slug = title.replace(/ß/g, 'ss').normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return slug.length <= 120 ? slug : slug.slice(0, 120).replace(/-[^-]*$/, '').replace(/-+$/, '');
}

function plainTextToHtml(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '')
    .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>\n')}</p>`)
    .join('\n');
}

const readingTimeMinutes = (text: string) => Math.max(1, Math.ceil(text.split(/\s+/).filter((word) => word !== '').length / 230));

function derivedExcerpt(text: string, max = 300): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length < max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > 0 ? cut.slice(0, space) : cut).replace(/[\s.,;:!?-]+$/u, '')}…`;
}

/**
 * Content a front end can publish (CONTRACT §13): a post's slug (unique, in one namespace with
 * its former slugs: post_slugs), body format, sanitized rendering, excerpt (given or derived),
 * reading time, SEO fields and preview stamp; a comment's rendering. Existing posts and comments
 * are plain text: they get their slug from their title and their rendering here, in batches.
 * Slugs are unique by post_slugs' primary key (every slug a post has or had is recorded there by
 * the write path); posts.slug has a plain index for the lookups.
 */
export class Publication1765500000000 implements MigrationInterface {
  name = 'Publication1765500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = queryRunner.connection.options.type === 'postgres';
    const p = (n: number) => (postgres ? `$${n}` : '?');
    const columns = [
      `"slug" varchar(120) NOT NULL DEFAULT ''`,
      `"body_format" varchar(8) NOT NULL DEFAULT 'plain'`,
      `"body_html" text NOT NULL DEFAULT ''`,
      `"excerpt" varchar(600) NOT NULL DEFAULT ''`,
      `"custom_excerpt" varchar(500)`,
      `"reading_time_minutes" integer NOT NULL DEFAULT 1`,
      `"meta_title" varchar(70)`,
      `"meta_description" varchar(200)`,
      `"canonical_url" varchar(2048)`,
      `"preview_stamp" integer NOT NULL DEFAULT 0`,
    ];
    for (const column of columns) await queryRunner.query(`ALTER TABLE "posts" ADD COLUMN ${column}`);
    await queryRunner.query(`ALTER TABLE "comments" ADD COLUMN "body_html" text NOT NULL DEFAULT ''`);
    await queryRunner.query(
      `CREATE TABLE "post_slugs" ("slug" varchar(120) NOT NULL PRIMARY KEY, "post_id" integer NOT NULL, ` +
        `CONSTRAINT "FK_post_slugs_post" FOREIGN KEY ("post_id") REFERENCES "posts" ("id") ON DELETE CASCADE)`,
    );
    await queryRunner.query(`CREATE INDEX "idx_post_slugs_post_id" ON "post_slugs" ("post_id")`);

    const taken = new Set<string>();
    for (let after = 0; ; ) {
      const posts: { id: number; title: string; body: string }[] = await queryRunner.query(
        `SELECT "id", "title", "body" FROM "posts" WHERE "id" > ${p(1)} ORDER BY "id" LIMIT ${BATCH}`,
        [after],
      );
      if (posts.length === 0) break;
      for (const post of posts) {
        const base = slugify(post.title) || `post-${post.id}`;
        let slug = base;
        for (let n = 2; taken.has(slug); n += 1) slug = `${base}-${n}`;
        taken.add(slug);
        await queryRunner.query(
          `UPDATE "posts" SET "slug" = ${p(1)}, "body_html" = ${p(2)}, "excerpt" = ${p(3)}, "reading_time_minutes" = ${p(4)} WHERE "id" = ${p(5)}`,
          [slug, plainTextToHtml(post.body), derivedExcerpt(post.body), readingTimeMinutes(post.body), post.id],
        );
        await queryRunner.query(`INSERT INTO "post_slugs" ("slug", "post_id") VALUES (${p(1)}, ${p(2)})`, [slug, post.id]);
      }
      after = posts[posts.length - 1].id;
    }
    await queryRunner.query(`CREATE INDEX "idx_posts_slug" ON "posts" ("slug")`);

    for (let after = 0; ; ) {
      const comments: { id: number; body: string }[] = await queryRunner.query(
        `SELECT "id", "body" FROM "comments" WHERE "id" > ${p(1)} ORDER BY "id" LIMIT ${BATCH}`,
        [after],
      );
      if (comments.length === 0) break;
      for (const comment of comments) {
        await queryRunner.query(`UPDATE "comments" SET "body_html" = ${p(1)} WHERE "id" = ${p(2)}`, [plainTextToHtml(comment.body), comment.id]);
      }
      after = comments[comments.length - 1].id;
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP INDEX "idx_posts_slug"');
    await queryRunner.query('DROP TABLE "post_slugs"');
    await queryRunner.query('ALTER TABLE "comments" DROP COLUMN "body_html"');
    for (const column of ['preview_stamp', 'canonical_url', 'meta_description', 'meta_title', 'reading_time_minutes', 'custom_excerpt', 'excerpt', 'body_html', 'body_format', 'slug']) {
      await queryRunner.query(`ALTER TABLE "posts" DROP COLUMN "${column}"`);
    }
  }
}
