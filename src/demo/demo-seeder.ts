import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { AuditLog, changesOf, SYSTEM } from '../audit/audit-log.service.js';
import { hashPassword } from '../auth/password-hasher.js';
import { CommentsRepository } from '../comments/comments.repository.js';
import { normalizeEmail } from '../common/validation/transforms.js';
import { AppConfig } from '../config/app-config.js';
import { withStartupLock } from '../database/migration-runner.js';
import type { Post } from '../posts/post.entity.js';
import { PostRevisionsRepository } from '../posts/post-revisions.repository.js';
import { PostsRepository } from '../posts/posts.repository.js';
import { PostSlugs, slugify as postSlug } from '../posts/post-slugs.service.js';
import { ContentRenderer } from '../content/content-renderer.js';
import { slugify } from '../tags/slug.js';
import { TagsRepository } from '../tags/tags.repository.js';
import type { User, UserRole } from '../users/user.entity.js';
import { UsersRepository } from '../users/users.repository.js';
import { TransactionRunner } from '../common/persistence/transaction-runner.js';

/**
 * The demo accounts the README lists, with the ids they get in an empty database (1-5, in this
 * order). None has an avatarUrl: the HTML pages draw their initials inline, so the demo works
 * offline and asks no other host for anything.
 */
export const DEMO_USERS: { name: string; email: string; password: string; role: UserRole }[] = [
  { name: 'Ada Admin', email: 'admin@example.com', password: 'admin-password', role: 'admin' },
  { name: 'Alice Author', email: 'alice@example.com', password: 'alice-password', role: 'author' },
  { name: 'Bob Writer', email: 'bob@example.com', password: 'bob-password', role: 'author' },
  { name: 'Eddie Editor', email: 'editor@example.com', password: 'editor-password', role: 'editor' },
  { name: 'Mo Moderator', email: 'moderator@example.com', password: 'moderator-password', role: 'moderator' },
];

/** Tags by name; posts name them by index. */
const DEMO_TAGS = ['Announcements', 'HTTP API', 'GraphQL', 'Operations'];

const DEMO_POSTS = [
  { author: 1, tags: [0], title: 'Welcome to the blog service', body: 'Posts, users and comments over REST and GraphQL, with live subscriptions. Try GET /posts or POST /graphql.' },
  { author: 1, tags: [1], title: 'Content negotiation', body: 'Every GET answers JSON, HAL, XML or HTML, chosen by the Accept header.' },
  { author: 2, tags: [1, 2], title: 'Keyset paging', body: 'Lists are paged by cursor, so the hundredth page costs what the first one does.' },
  { author: 2, tags: [2], title: 'Subscriptions', body: 'Subscribe to postCreated over graphql-ws or Server-Sent Events and watch posts arrive.' },
  { author: 0, tags: [3], title: 'Running in production', body: 'Point DATABASE_URL at PostgreSQL and REDIS_URL at Redis, and run as many instances as you like.' },
];

/** Not public: seen by their author (Alice) and admins only. */
const DEMO_UNPUBLISHED = [
  { author: 1, status: 'draft', title: 'Notes for a post on revisions', body: 'Every change of title, body or status is a numbered revision: GET /posts/{id}/revisions.' },
  { author: 1, status: 'scheduled', title: 'Coming soon: tags', body: 'Scheduled: published by the service itself when publishAt comes.' },
] as const;

/**
 * Comments by index (their ids in an empty database are index + 1): comment 8 opens a thread of
 * replies (`parent`: an earlier comment's index), and the last three wait in the moderation queue.
 * The thread and the queue are on post 5, which the suites' assertions about posts 1-4 leave alone.
 */
const DEMO_COMMENTS: { post: number; author: number; body: string; parent?: number; status?: 'pending' }[] = [
  { post: 0, author: 1, body: 'Great to be here!' },
  { post: 0, author: 2, body: 'Looking forward to more posts.' },
  { post: 1, author: 2, body: 'XML too? Nice.' },
  { post: 2, author: 0, body: 'Cursors are opaque, remember.' },
  { post: 2, author: 2, body: 'Tried it with a million posts, still fast.' },
  { post: 3, author: 1, body: 'Works behind our proxy with SSE.' },
  { post: 4, author: 1, body: 'What about migrations?' },
  { post: 4, author: 0, body: 'They run at start-up, under a lock.' },
  { post: 4, author: 2, parent: 7, body: 'And when two instances start at once?' },
  { post: 4, author: 0, parent: 8, body: 'One takes the lock and migrates, the other waits for it.' },
  { post: 4, author: 2, parent: 9, body: 'Thanks, that settles it.' },
  { post: 4, author: 2, status: 'pending', body: 'Does it run on MySQL too?' },
  { post: 4, author: 2, status: 'pending', body: 'Buy cheap watches at example.net' },
  { post: 4, author: 2, status: 'pending', body: 'First!' },
];

/**
 * At start-up: creates the first admin from ADMIN_EMAIL/ADMIN_PASSWORD when there is no admin,
 * and fills an empty database with demo content unless SEED_DEMO_DATA=false.
 */
@Injectable()
export class DemoSeeder implements OnApplicationBootstrap {
  private readonly logger = new Logger('Seed');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly transactions: TransactionRunner,
    private readonly config: AppConfig,
    private readonly users: UsersRepository,
    private readonly posts: PostsRepository,
    private readonly revisions: PostRevisionsRepository,
    private readonly comments: CommentsRepository,
    private readonly tags: TagsRepository,
    private readonly slugs: PostSlugs,
    private readonly renderer: ContentRenderer,
    private readonly audit: AuditLog,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    // Through the runner: on SQLite the background workers starting now (the event relay, its
    // pruning, the webhook feeder) share the one connection, and their transactions queue with this one.
    await withStartupLock(this.dataSource, () =>
      this.transactions.run(async (manager) => {
        const empty = (await this.users.count()) === 0;
        await this.ensureFirstAdmin(manager);
        if (empty && this.config.seedDemoData) await this.seedDemoData(manager);
      }),
    );
  }

  private async ensureFirstAdmin(manager: EntityManager): Promise<void> {
    const { adminEmail, adminPassword } = this.config;
    if (!adminEmail || !adminPassword) return;
    if ((await this.users.countWithRole('admin', manager)) > 0) return;
    // Never promotes an existing account: whoever signed up with that address is not the operator.
    const email = normalizeEmail(adminEmail);
    if (await this.users.findByEmail(email, manager)) {
      this.logger.warn(`ADMIN_EMAIL ${adminEmail} belongs to an existing account: no admin created (promote one with PATCH /users/{id} as an admin, or choose another ADMIN_EMAIL)`);
      return;
    }
    const passwordHash = await hashPassword(adminPassword);
    const admin = await this.users.insert({ name: 'Administrator', email, passwordHash, avatarUrl: null, role: 'admin' }, manager);
    await this.audit.record(manager, SYSTEM, { action: 'users.create', resource: { type: 'user', id: admin.id }, changes: changesOf(null, admin, ['name', 'email', 'avatarUrl', 'role']) });
    this.logger.log(`Created the first admin ${adminEmail}`);
  }

  /** A demo post's text as the write path stores it (the demo titles are distinct: their slugs too). */
  private async content(title: string, body: string): Promise<Pick<Post, 'title' | 'slug' | 'body' | 'bodyFormat' | 'bodyHtml' | 'excerpt' | 'readingTimeMinutes' | 'locale'>> {
    const rendered = await this.renderer.renderPost(body, 'plain');
    return {
      title,
      slug: postSlug(title),
      body,
      bodyFormat: 'plain',
      bodyHtml: rendered.bodyHtml,
      excerpt: this.renderer.excerptOf(rendered),
      readingTimeMinutes: rendered.readingTimeMinutes,
      locale: this.config.defaultLocale,
    };
  }

  private async seedDemoData(manager: EntityManager): Promise<void> {
    const start = Date.now() - 60 * 60 * 1000;
    let tick = 0;
    const at = () => new Date(start + 60_000 * tick++);
    const users: User[] = [];
    for (const demo of DEMO_USERS) {
      const passwordHash = await hashPassword(demo.password);
      users.push(await this.users.insert({ name: demo.name, email: demo.email, passwordHash, avatarUrl: null, role: demo.role, createdAt: at() }, manager));
    }
    const posts: Post[] = [];
    for (const demo of DEMO_POSTS) {
      const createdAt = at();
      posts.push(await this.posts.insert({ ...(await this.content(demo.title, demo.body)), authorId: users[demo.author].id, status: 'published', publishedAt: createdAt, groupPublishedAt: createdAt, createdAt }, manager));
    }
    for (const demo of DEMO_UNPUBLISHED) {
      const publishAt = demo.status === 'scheduled' ? new Date(start + 30 * 86_400_000) : null;
      posts.push(await this.posts.insert({ ...(await this.content(demo.title, demo.body)), authorId: users[demo.author].id, status: demo.status, publishAt, createdAt: at() }, manager));
    }
    for (const post of posts) {
      await this.slugs.claimFor(post.id, post.slug, post.title, post.slug, manager);
      await this.revisions.record(post, post.authorId, manager);
    }
    const tagIds: number[] = [];
    for (const name of DEMO_TAGS) tagIds.push((await this.tags.ensure(name, slugify(name), true, manager)).id);
    for (const [index, demo] of DEMO_POSTS.entries()) {
      await this.tags.setPostTags(posts[index].id, demo.tags.map((tag) => tagIds[tag]), manager, { replace: false });
    }
    const comments: { id: number; depth: number }[] = [];
    for (const demo of DEMO_COMMENTS) {
      const parent = demo.parent === undefined ? undefined : comments[demo.parent];
      const comment = await this.comments.insert(
        {
          postId: posts[demo.post].id,
          body: demo.body,
          bodyHtml: await this.renderer.renderComment(demo.body),
          authorId: users[demo.author].id,
          parentId: parent?.id ?? null,
          depth: (parent?.depth ?? 0) + 1,
          status: demo.status ?? 'approved',
          createdAt: at(),
        },
        manager,
      );
      comments.push({ id: comment.id, depth: (parent?.depth ?? 0) + 1 });
    }
    this.logger.log(`Loaded demo data: ${users.length} users, ${posts.length} posts, ${DEMO_TAGS.length} tags, ${DEMO_COMMENTS.length} comments`);
  }
}
