import request from 'supertest';
import { afterAll, beforeAll } from 'vitest';
import type { DatabaseKind } from './databases.js';
import { startTestApp, type TestApp, type TestAppOptions } from './test-app.js';

/** The demo accounts (src/demo/demo-seeder.ts), by the name a spec calls them. */
export const DEMO_USERS = {
  admin: { email: 'admin@example.com', password: 'admin-password' },
  alice: { email: 'alice@example.com', password: 'alice-password' },
  bob: { email: 'bob@example.com', password: 'bob-password' },
  editor: { email: 'editor@example.com', password: 'editor-password' },
  moderator: { email: 'moderator@example.com', password: 'moderator-password' },
} as const;

export type DemoUser = keyof typeof DEMO_USERS;

export interface AppFixtureOptions extends TestAppOptions {
  /** The demo users signed in once the app has started (their tokens in `tokens`); admin, alice and bob unless said. */
  signIn?: readonly DemoUser[];
  /** The hook's timeout, for apps slow to start (hookTimeout otherwise). */
  timeout?: number;
}

/** A TestApp started by `useApp`, and the demo users' access tokens. */
export interface AppFixture extends TestApp {
  /** Filled in beforeAll: read them inside hooks and tests, not where the suite is declared. */
  readonly tokens: Readonly<Record<DemoUser, string>>;
  /** A supertest client of the server. */
  http(): ReturnType<typeof request>;
}

/**
 * The preamble of most e2e suites: the real application on a fresh database of `kind`, started
 * in beforeAll (the demo users of `signIn` signed in), closed in afterAll. Call it where the
 * suite is declared; what it returns reads through to the started app, so it can be passed
 * wherever a TestApp is taken (supertest's `request(app.server)`, the support helpers).
 */
export function useApp(kind: DatabaseKind, { signIn = ['admin', 'alice', 'bob'], timeout, ...options }: AppFixtureOptions = {}): AppFixture {
  let started: TestApp | undefined;
  const tokens = {} as Record<DemoUser, string>;
  const current = (): TestApp => {
    if (!started) throw new Error('useApp: the app is not started (read it inside hooks and tests)');
    return started;
  };
  const signInAs = async (app: TestApp, user: DemoUser) => {
    const response = await request(app.server).post('/tokens').send(DEMO_USERS[user]).expect(201);
    tokens[user] = response.body.accessToken as string;
  };

  beforeAll(async () => {
    started = await startTestApp(kind, options);
    await Promise.all(signIn.map((user) => signInAs(started!, user)));
  }, timeout);
  afterAll(() => started?.close());

  return {
    get app() {
      return current().app;
    },
    get server() {
      return current().server;
    },
    get config() {
      return current().config;
    },
    get database() {
      return current().database;
    },
    close: () => current().close(),
    tokens,
    http: () => request(current().server),
  };
}
