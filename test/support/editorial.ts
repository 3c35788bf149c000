import { randomBytes } from 'node:crypto';
import { type Client as SseClient, createClient as createSseClient } from 'graphql-sse';
import request, { type Test } from 'supertest';
import { DataSource } from 'typeorm';
import { expect } from 'vitest';
import { ADMIN, ALICE, BOB, bearer, tokenFor } from './auth.js';
import { type DatabaseKind, TEST_REDIS_URL } from './databases.js';
import type { CommentBody, PostBody } from './resources.js';
import { type LiveSubscription, until } from './subscriptions.js';
import type { TestApp } from './test-app.js';

/**
 * Helpers of the editorial specs (CONTRACT v3 §7): posts in each state, the callers of the
 * visibility matrix, the event feed as one caller reads it, and checks that content did not leak.
 */

export const ADMIN_ID = 1;
export const ALICE_ID = 2;
export const BOB_ID = 3;

export type PostStatus = 'draft' | 'in_review' | 'scheduled' | 'published' | 'trashed';
/** The states of the matrix; `published` is the control row. */
export const STATES: PostStatus[] = ['draft', 'in_review', 'scheduled', 'trashed', 'published'];

export interface EditorialPost extends PostBody {
  status: PostStatus;
  publishAt: string | null;
  publishedAt: string | null;
  trashedAt: string | null;
}

export interface Revision {
  number: number;
  title: string;
  body: string;
  status: PostStatus;
  editorId: number | null;
  createdAt: string;
}

/** The settings every editorial suite runs with: webhooks to 127.0.0.1, quick retries, and Redis beside PostgreSQL when the run has one. */
export function editorialEnv(kind: DatabaseKind, extra: Record<string, string> = {}): Record<string, string> {
  const redis: Record<string, string> =
    kind === 'postgres' && TEST_REDIS_URL ? { REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: `editorial-${process.pid}-${randomBytes(4).toString('hex')}:` } : {};
  return { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '50', WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_MAX_ATTEMPTS: '3', ...redis, ...extra };
}

// ---------------------------------------------------------------------------------------------
// Callers

export type CallerName = 'anonymous' | 'bob' | 'bobKey' | 'alice' | 'aliceKey' | 'admin' | 'adminKey';

export interface Caller {
  name: CallerName;
  /** How a test name says who asks. */
  label: string;
  /** The bearer credential; none for the anonymous caller. */
  token?: string;
}

export const CALLER_NAMES: CallerName[] = ['anonymous', 'bob', 'bobKey', 'alice', 'aliceKey', 'admin', 'adminKey'];

export const CALLER_LABELS: Record<CallerName, string> = {
  anonymous: 'anonymous',
  bob: 'BOB (another author)',
  bobKey: "BOB's API key (read, write)",
  alice: 'ALICE (the author)',
  aliceKey: "ALICE's API key (read)",
  admin: 'ADMIN',
  adminKey: "ADMIN's API key (read)",
};

/**
 * Whether a caller may see ALICE's post in a state: published posts are public, the rest are ALICE's
 * and the admins'. A `read` key reads what anonymous callers read (CONTRACT §3), its user's own drafts not.
 */
export function mayRead(caller: CallerName, state: PostStatus): boolean {
  return state === 'published' || caller === 'alice' || caller === 'admin';
}

/** Whether the caller is the author or an admin (who read revisions and non-public lists). */
export const isEditorOfAlice = (caller: CallerName) => caller === 'alice' || caller === 'admin';

/** Signs in the demo accounts, makes BOB an API key with the read and write scopes, and ALICE and ADMIN one with read only. */
export async function signInCallers(app: TestApp): Promise<Record<CallerName, Caller>> {
  const [alice, bob, admin] = await Promise.all([tokenFor(app, ALICE), tokenFor(app, BOB), tokenFor(app, ADMIN)]);
  const newKey = async (userId: number, token: string, scopes: string[]) => {
    const key = await request(app.server).post(`/users/${userId}/api-keys`).set(bearer(token)).send({ name: 'Editorial matrix', scopes });
    expect(key.status, key.text).toBe(201);
    return key.body.key as string;
  };
  const [bobKey, aliceKey, adminKey] = [await newKey(BOB_ID, bob, ['read', 'write']), await newKey(ALICE_ID, alice, ['read']), await newKey(ADMIN_ID, admin, ['read'])];
  const tokens: Record<CallerName, string | undefined> = { anonymous: undefined, bob, bobKey, alice, aliceKey, admin, adminKey };
  return Object.fromEntries(CALLER_NAMES.map((name) => [name, { name, label: CALLER_LABELS[name], token: tokens[name] }])) as Record<CallerName, Caller>;
}

/** A supertest request with the caller's credential, if any. */
export function as(test: Test, token: string | undefined): Test {
  return token ? test.set(bearer(token)) : test;
}

// ---------------------------------------------------------------------------------------------
// Posts in a state

/** A word found nowhere else: put in a resource's text, it shows whether that text reached a reader. */
export function marker(label: string): string {
  return `mk${label.replace(/[^a-z0-9]/gi, '')}${randomBytes(5).toString('hex')}`;
}

/**
 * An ISO time at least `ms` from now, rounded up to a whole second (so that it reads back the
 * same from every database, whatever precision it keeps).
 */
export const fromNow = (ms: number) => new Date(Math.ceil((Date.now() + ms) / 1000) * 1000).toISOString();

/** POST /posts with the fields (`status`, `publishAt`…) given; 201 expected. */
export async function createPostWith(app: TestApp, token: string, fields: Record<string, unknown>): Promise<EditorialPost> {
  const response = await request(app.server).post('/posts').set(bearer(token)).send(fields);
  expect(response.status, `POST /posts ${JSON.stringify(fields).slice(0, 120)}: ${response.text}`).toBe(201);
  return response.body as EditorialPost;
}

/**
 * A post by the token's owner in the given state: published (no status sent), a draft, submitted
 * for review (CONTRACT §16), scheduled an hour ahead, or trashed (a draft moved to the trash by DELETE, so that it was never public).
 * `beforeTrash` runs while a trashed post is still a draft (to comment on it).
 */
export async function createPostIn(
  app: TestApp,
  token: string,
  state: PostStatus,
  options: { title?: string; body?: string; beforeTrash?: (post: EditorialPost) => Promise<void> } = {},
): Promise<EditorialPost> {
  const text = { title: options.title ?? `A ${state} post`, body: options.body ?? `The body of a ${state} post` };
  if (state === 'published') return createPostWith(app, token, text);
  if (state === 'scheduled') return createPostWith(app, token, { ...text, status: 'scheduled', publishAt: fromNow(3_600_000) });
  if (state === 'in_review') return createPostWith(app, token, { ...text, status: 'in_review' });
  const draft = await createPostWith(app, token, { ...text, status: 'draft' });
  if (state === 'draft') return draft;
  await options.beforeTrash?.(draft);
  await request(app.server).delete(`/posts/${draft.id}`).set(bearer(token)).expect(204);
  return readPost(app, draft.id, token);
}

/** GET /posts/{id} as JSON with the credential; 200 expected. */
export async function readPost(app: TestApp, id: number, token?: string): Promise<EditorialPost> {
  const response = await as(request(app.server).get(`/posts/${id}`), token);
  expect(response.status, `GET /posts/${id}: ${response.text}`).toBe(200);
  return response.body as EditorialPost;
}

/** PATCH /posts/{id}; 200 expected. */
export async function patchPost(app: TestApp, id: number, token: string, fields: Record<string, unknown>): Promise<EditorialPost> {
  const response = await request(app.server).patch(`/posts/${id}`).set(bearer(token)).send(fields);
  expect(response.status, `PATCH /posts/${id} ${JSON.stringify(fields)}: ${response.text}`).toBe(200);
  return response.body as EditorialPost;
}

/** POST /posts/{id}/comments; 201 expected. */
export async function commentOn(app: TestApp, postId: number, token: string, body: string): Promise<CommentBody> {
  const response = await request(app.server).post(`/posts/${postId}/comments`).set(bearer(token)).send({ body });
  expect(response.status, `POST /posts/${postId}/comments: ${response.text}`).toBe(201);
  return response.body as CommentBody;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;

/** The §7 fields of a post as JSON has them, for a post in `state`. */
export function expectEditorialFields(body: object, state: PostStatus, door = 'the post'): void {
  const post = body as Record<string, unknown>;
  expect(post.status, `${door}: status`).toBe(state);
  for (const field of ['publishAt', 'publishedAt', 'trashedAt']) {
    expect(post, `${door}: has ${field}`).toHaveProperty(field);
    const value = post[field];
    if (value !== null) expect(value, `${door}: ${field}`).toMatch(ISO);
  }
  if (state === 'scheduled') {
    expect(post.publishAt, `${door}: publishAt of a scheduled post`).toMatch(ISO);
    expect(post.publishedAt, `${door}: publishedAt of a scheduled post`).toBeNull();
  }
  if (state === 'draft' || state === 'in_review') expect(post.publishedAt, `${door}: publishedAt of a ${state} post never published`).toBeNull();
  if (state === 'published') expect(post.publishedAt, `${door}: publishedAt of a published post`).toMatch(ISO);
  if (state === 'trashed') expect(post.trashedAt, `${door}: trashedAt of a trashed post`).toMatch(ISO);
  else expect(post.trashedAt, `${door}: trashedAt of a post not in the trash`).toBeNull();
}

// ---------------------------------------------------------------------------------------------
// The event feed

export interface FeedEvent {
  cursor: string;
  type: string;
  occurredAt: string;
  postId?: number;
  commentId?: number;
  authorId: number;
  resource?: Record<string, unknown> | null;
}

/** Every event after `after` that the credential may read, following Link rel="next". */
export async function eventsSince(app: TestApp, token: string | undefined, after?: string, query = ''): Promise<FeedEvent[]> {
  const events: FeedEvent[] = [];
  let url: string | null = `/events?limit=100${query}${after ? `&after=${after}` : ''}`;
  while (url) {
    const response: request.Response = await as(request(app.server).get(url), token);
    expect(response.status, `GET ${url}: ${response.text.slice(0, 300)}`).toBe(200);
    events.push(...(response.body as FeedEvent[]));
    url = /^<([^>]+)>; rel="next"$/.exec((response.headers.link as string | undefined) ?? '')?.[1] ?? null;
  }
  return events;
}

/** The cursor of the newest event the credential may read (an admin reads every event). */
export async function lastCursor(app: TestApp, token?: string): Promise<string | undefined> {
  return (await eventsSince(app, token)).at(-1)?.cursor;
}

/** What an `events` subscriber selects in these specs. */
export const EVENT_SELECTION = 'cursor type occurredAt postId commentId authorId post { id title body status } comment { id body }';
export const EVENTS_SUBSCRIPTION = `subscription($after: String, $types: [EventType!], $postId: Int) {
  events(after: $after, types: $types, postId: $postId) { ${EVENT_SELECTION} }
}`;

/** A graphql-sse client in distinct connections mode, with the credential as a header. */
export function sseClient(base: string, token?: string): SseClient<false> {
  return createSseClient({ url: `${base}/graphql/stream`, singleConnection: false, retryAttempts: 0, headers: token ? { authorization: `Bearer ${token}` } : {} });
}

/**
 * Waits until every subscription is live, without looking inside the service: `probe` writes
 * something each of them is told of (a public post, say), again and again, until each one has
 * received something. Only then does a write reach all of them for sure.
 */
export async function warmUp(subscriptions: LiveSubscription[], probe: () => Promise<void>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await probe();
    try {
      await until('every subscription to receive a probe', () => subscriptions.every((subscription) => subscription.results.length > 0 || subscription.error !== undefined), 1_000);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
  }
  const failed = subscriptions.filter((subscription) => subscription.error !== undefined || subscription.results.some((result) => result.errors));
  expect(failed.map((subscription) => JSON.stringify(subscription.error ?? subscription.results)), 'subscriptions that failed').toEqual([]);
}

/** Raw results of a subscription, unwrapped from their root field, errors included. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function valuesOf(subscription: LiveSubscription): any[] {
  return subscription.results.map((result) => Object.values(result.data ?? {})[0]);
}

// ---------------------------------------------------------------------------------------------
// Leak checks

/** The text holds nothing of the resource whose texts carry `mark`. */
export function expectNoMarker(text: string, mark: string, door: string): void {
  const at = text.indexOf(mark);
  expect(at, `${door} shows content it must not: …${text.slice(Math.max(0, at - 120), at + 60)}…`).toBe(-1);
}

/**
 * Every row of every table of the app's database that holds `needle` in any column, as
 * "table: row" strings (bytes read as UTF-8). For privacy checks: deleted content must be gone
 * from the database itself, whatever the tables are called.
 */
export async function rowsHolding(app: TestApp, needle: string): Promise<string[]> {
  const dataSource = app.app.get(DataSource);
  const postgres = dataSource.options.type === 'postgres';
  const tables = (await dataSource.query(
    postgres
      ? "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
      : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
  )) as { name: string }[];
  const found: string[] = [];
  for (const { name } of tables) {
    const rows = (await dataSource.query(`SELECT * FROM "${name.replace(/"/g, '""')}"`)) as Record<string, unknown>[];
    for (const row of rows) {
      const text = JSON.stringify(row, (_key, value: unknown) => {
        const bytes = value as { type?: string; data?: number[] } | null;
        return bytes && bytes.type === 'Buffer' && Array.isArray(bytes.data) ? Buffer.from(bytes.data).toString('utf8') : value;
      });
      if (text.includes(needle)) found.push(`${name}: ${text.slice(0, 300)}`);
    }
  }
  return found;
}
