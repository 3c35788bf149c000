import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, EntityManager } from 'typeorm';
import { hashPassword } from '../auth/password-hasher.js';
import { Comment } from '../comments/comment.entity.js';
import { AppConfig } from '../config/app-config.js';
import { Post } from '../posts/post.entity.js';
import { User, type UserRole } from '../users/user.entity.js';
import { withStartupLock } from './migration-runner.js';

/** The demo accounts the README lists. */
export const DEMO_USERS: { name: string; email: string; password: string; role: UserRole; avatarUrl: string | null }[] = [
  { name: 'Ada Admin', email: 'admin@example.com', password: 'admin-password', role: 'admin', avatarUrl: null },
  { name: 'Alice Author', email: 'alice@example.com', password: 'alice-password', role: 'author', avatarUrl: 'https://i.pravatar.cc/150?u=alice' },
  { name: 'Bob Writer', email: 'bob@example.com', password: 'bob-password', role: 'author', avatarUrl: 'https://i.pravatar.cc/150?u=bob' },
];

const DEMO_POSTS = [
  { author: 1, title: 'Welcome to the blog service', body: 'Posts, users and comments over REST and GraphQL, with live subscriptions. Try GET /posts or POST /graphql.' },
  { author: 1, title: 'Content negotiation', body: 'Every GET answers JSON, HAL, XML or HTML, chosen by the Accept header.' },
  { author: 2, title: 'Keyset paging', body: 'Lists are paged by cursor, so the hundredth page costs what the first one does.' },
  { author: 2, title: 'Subscriptions', body: 'Subscribe to postCreated over graphql-ws or Server-Sent Events and watch posts arrive.' },
  { author: 0, title: 'Running in production', body: 'Point DATABASE_URL at PostgreSQL and REDIS_URL at Redis, and run as many instances as you like.' },
];

const DEMO_COMMENTS = [
  { post: 0, author: 1, body: 'Great to be here!' },
  { post: 0, author: 2, body: 'Looking forward to more posts.' },
  { post: 1, author: 2, body: 'XML too? Nice.' },
  { post: 2, author: 0, body: 'Cursors are opaque, remember.' },
  { post: 2, author: 2, body: 'Tried it with a million posts, still fast.' },
  { post: 3, author: 1, body: 'Works behind our proxy with SSE.' },
  { post: 4, author: 1, body: 'What about migrations?' },
  { post: 4, author: 0, body: 'They run at start-up, under a lock.' },
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
    private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await withStartupLock(this.dataSource, () =>
      this.dataSource.transaction(async (manager) => {
        const empty = (await manager.count(User)) === 0;
        await this.ensureFirstAdmin(manager);
        if (empty && this.config.seedDemoData) await this.seedDemoData(manager);
      }),
    );
  }

  private async ensureFirstAdmin(manager: EntityManager): Promise<void> {
    const { adminEmail, adminPassword } = this.config;
    if (!adminEmail || !adminPassword) return;
    if ((await manager.countBy(User, { role: 'admin' })) > 0) return;
    const passwordHash = await hashPassword(adminPassword);
    const now = new Date();
    const existing = await manager.findOneBy(User, { email: adminEmail });
    if (existing) {
      await manager.update(User, { id: existing.id }, { role: 'admin', passwordHash, updatedAt: now });
    } else {
      await manager.insert(User, {
        name: 'Administrator', email: adminEmail, passwordHash, avatarUrl: null, role: 'admin', createdAt: now, updatedAt: now, version: 1,
      });
    }
    this.logger.log(`Created the first admin ${adminEmail}`);
  }

  private async seedDemoData(manager: EntityManager): Promise<void> {
    const start = Date.now() - 60 * 60 * 1000;
    let tick = 0;
    const at = () => new Date(start + 60_000 * tick++);
    const users: User[] = [];
    for (const demo of DEMO_USERS) {
      const time = at();
      users.push(
        await manager.save(manager.create(User, {
          name: demo.name, email: demo.email, passwordHash: await hashPassword(demo.password),
          avatarUrl: demo.avatarUrl, role: demo.role, createdAt: time, updatedAt: time,
        })),
      );
    }
    const posts: Post[] = [];
    for (const demo of DEMO_POSTS) {
      const time = at();
      posts.push(
        await manager.save(manager.create(Post, {
          title: demo.title, body: demo.body, authorId: users[demo.author].id, createdAt: time, updatedAt: time,
        })),
      );
    }
    for (const demo of DEMO_COMMENTS) {
      const time = at();
      await manager.save(manager.create(Comment, {
        postId: posts[demo.post].id, body: demo.body, authorId: users[demo.author].id, createdAt: time, updatedAt: time,
      }));
    }
    this.logger.log(`Loaded demo data: ${users.length} users, ${posts.length} posts, ${DEMO_COMMENTS.length} comments`);
  }
}
