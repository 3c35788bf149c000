import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ModulesContainer } from '@nestjs/core';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import sharp from 'sharp';
import { format } from 'sql-formatter';
import request from 'supertest';
import { DataSource } from 'typeorm';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EventRetention } from '../src/event-log/event-retention.js';
import { AuditRetention } from '../src/audit/audit-retention.js';
import { QueryPlanner } from '../src/api/graphql/plans/query-planner.js';
import { MediaRepository } from '../src/media/media.repository.js';
import { MediaVariantsWorker } from '../src/media/media-variants.worker.js';
import { PostScheduler } from '../src/posts/post-scheduler.js';
import { ADMIN, ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import type { DatabaseKind } from './support/databases.js';
import { expectData, graphql } from './support/graphql-client.js';
import { listen, LiveSubscription, until, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * The SQL files: every statement the repositories send, per dialect, written out into
 * `src/database/queries/<dialect>/<repository>.sql` so that a reviewer reads the real SQL (as
 * immich does). A workload runs through the real application (REST, GraphQL, single sign-on,
 * API keys, webhooks to a local receiver, the event log and its pruning); every statement sent
 * (Sql and TypeORM's logger: each one passes there) is recorded under the repository method
 * that sent it. Every method of every repository that talks to the database (read from the
 * sources: public and async) must send at least one, so a new method without a workload here
 * fails. With UPDATE_SQL_FILES=1 the files are written; otherwise a statement missing from them
 * or left over in them fails, with the difference.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const QUERIES = join(ROOT, 'src/database/queries');
const SPEC = relative(ROOT, fileURLToPath(import.meta.url));
const UPDATE = process.env.UPDATE_SQL_FILES === '1';
const BASE = { name: 'ResourceRepository', file: 'src/common/persistence/resource-repository.ts' };
/** Transaction control: not a repository's statement. */
const TRANSACTION_CONTROL = /^(BEGIN|COMMIT|ROLLBACK|START TRANSACTION|SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT)\b/i;
/** Methods a dialect sends nothing for. */
const SILENT: Record<DatabaseKind, string[]> = {
  // No NOTIFY where no other instance shares the database; nothing held back where reads never wait;
  // no INSERT inside WITH (a new post's companions are statements of their own).
  sqlite: ['OutboxRepository.notify', 'OutboxRepository.heldBack', 'PostsRepository.insertClaiming'],
  postgres: [],
};

// ----------------------------------------------------------------------------------------------
// The repositories, read from the sources

interface RepositoryClass {
  name: string;
  /** Relative to the project root. */
  file: string;
  extendsBase: boolean;
  /** Public async methods declared in the class: the ones that talk to the database. */
  methods: string[];
}

function readClasses(file: string): RepositoryClass[] {
  const source = ts.createSourceFile(file, readFileSync(join(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const classes: RepositoryClass[] = [];
  for (const statement of source.statements) {
    if (!ts.isClassDeclaration(statement) || !statement.name) continue;
    const heritage = statement.heritageClauses?.flatMap((clause) => clause.types.map((type) => type.expression.getText(source))) ?? [];
    const methods = statement.members.filter(ts.isMethodDeclaration).flatMap((member) => {
      const flags = ts.getCombinedModifierFlags(member);
      if (!ts.isIdentifier(member.name) || flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected | ts.ModifierFlags.Static | ts.ModifierFlags.Abstract)) return [];
      const async = Boolean(flags & ts.ModifierFlags.Async) || /^Promise\b/.test(member.type?.getText(source) ?? '');
      return async ? [member.name.text] : [];
    });
    classes.push({ name: statement.name.text, file, extendsBase: heritage.includes(BASE.name), methods });
  }
  return classes;
}

function repositoryClasses(): { base: RepositoryClass; repositories: RepositoryClass[] } {
  const files = (readdirSync(join(ROOT, 'src'), { recursive: true }) as string[])
    .filter((path) => path.endsWith('.repository.ts'))
    .map((path) => join('src', path))
    .sort();
  const repositories = files.flatMap(readClasses).filter((type) => type.name.endsWith('Repository'));
  const base = readClasses(BASE.file).find((type) => type.name === BASE.name)!;
  return { base, repositories };
}

// ----------------------------------------------------------------------------------------------
// Recording

interface Recording {
  /** `Class.method` → statement text → its place in a call of the method (the lowest seen). */
  statements: Map<string, Map<string, number>>;
  /** Every `Class.method` that was running when a statement was sent (its own, or one it called). */
  covered: Set<string>;
  /** Statements sent outside any repository method (transaction control aside) → the function that sent them. */
  unattributed: Map<string, string>;
  stop(): void;
}

/**
 * Wraps every method of every repository instance so that it runs in its own context, and hooks
 * TypeORM's logger (Sql logs each statement it sends there too).
 */
function record(app: NestFastifyApplication, classes: RepositoryClass[], base: RepositoryClass): Recording {
  /** The repository methods running: each with how many statements it has sent so far. */
  const context = new AsyncLocalStorage<{ label: string; sent: number }[]>();
  const recording: Recording = { statements: new Map(), covered: new Set(), unattributed: new Map(), stop: () => (stopped = true) };
  let stopped = false;
  const byName = new Map(classes.map((type) => [type.name, type]));
  const reportable = (label: string) => {
    const [name, method] = label.split('.');
    const type = byName.get(name)!;
    return type.methods.includes(method) || (type.extendsBase && base.methods.includes(method));
  };

  for (const module of app.get(ModulesContainer).values()) {
    for (const wrapper of module.providers.values()) {
      const instance = wrapper.instance as object | undefined;
      const name = instance?.constructor?.name;
      if (!instance || !name || !byName.has(name) || Object.prototype.hasOwnProperty.call(instance, '__recorded')) continue;
      Object.defineProperty(instance, '__recorded', { value: true });
      const seen = new Set<string>();
      for (let prototype = Object.getPrototypeOf(instance) as object | null; prototype && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype) as object | null) {
        for (const method of Object.getOwnPropertyNames(prototype)) {
          const original = Object.getOwnPropertyDescriptor(prototype, method)?.value as unknown;
          if (method === 'constructor' || seen.has(method) || typeof original !== 'function') continue;
          seen.add(method);
          const label = `${name}.${method}`;
          Object.defineProperty(instance, method, {
            configurable: true,
            writable: true,
            value(this: object, ...args: unknown[]) {
              const frame = { label, sent: 0 };
              return context.run([...(context.getStore() ?? []), frame], () => (original as (...args: unknown[]) => unknown).apply(this, args));
            },
          });
        }
      }
    }
  }

  const logger = app.get(DataSource).logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, runner) => {
    if (!stopped && !TRANSACTION_CONTROL.test(query.trim())) {
      const stack = context.getStore();
      if (!stack) {
        recording.unattributed.set(normalize(query), sender(new Error().stack ?? ''));
      } else {
        for (const frame of stack) recording.covered.add(frame.label);
        // The outermost method of the innermost one's repository that talks to the database
        // (`listForUser` rather than the `page` it calls), else the innermost method.
        const innermost = stack[stack.length - 1];
        const repository = innermost.label.split('.')[0];
        const owner = stack.find((frame) => reportable(frame.label) && frame.label.startsWith(`${repository}.`)) ?? innermost;
        let texts = recording.statements.get(owner.label);
        if (!texts) recording.statements.set(owner.label, (texts = new Map()));
        const text = normalize(query);
        const place = owner.sent++;
        texts.set(text, Math.min(place, texts.get(text) ?? place));
      }
    }
    return logQuery(query, parameters, runner);
  };
  return recording;
}

/** The first function of the service's own on a stack, and its file: `withStartupLock (src/database/migration-runner.ts)`. */
function sender(stack: string): string {
  for (const line of stack.split('\n').slice(1)) {
    const match = /at (?:async )?(?:([\w.<>]+) \()?(?:file:\/\/)?([^():]+)(?::\d+){2}\)?$/.exec(line.trim());
    if (!match) continue;
    const file = relative(ROOT, match[2]);
    if (file.startsWith('src/') && !file.startsWith('src/common/persistence/')) return `${match[1] ?? '(anonymous)'} (${file})`;
  }
  return '(outside the service)';
}

// ----------------------------------------------------------------------------------------------
// The files

/**
 * One text per statement shape: an `IN (…)` list of parameters is shown with three, and a
 * multi-row VALUES (the same row repeated) with one, whatever the lengths sent; `$n` are
 * numbered again in order (the repositories use each once, in order).
 */
function normalize(text: string): string {
  const numbers = [...text.matchAll(/\$(\d+)/g)].map((match) => Number(match[1]));
  if (numbers.some((number, index) => number !== index + 1)) return text;
  const MARK = '\u0001';
  let shape = text.replace(/\$\d+|\?/g, MARK);
  shape = shape.replace(new RegExp(`IN \\(${MARK}(?:, ${MARK})*\\)`, 'g'), `IN (${MARK}, ${MARK}, ${MARK})`);
  shape = shape.replace(/VALUES (\([^()]*\))(?:, \1)+/g, 'VALUES $1');
  let next = 0;
  return shape.replace(new RegExp(MARK, 'g'), () => (numbers.length > 0 ? `$${++next}` : '?'));
}

function pretty(text: string, kind: DatabaseKind): string {
  try {
    return format(text, { language: kind === 'postgres' ? 'postgresql' : 'sqlite', keywordCase: 'preserve', tabWidth: 2, expressionWidth: 120 });
  } catch {
    return text;
  }
}

const DIALECT_NAMES: Record<DatabaseKind, string> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

/** File name → content, for one dialect. */
function render(recording: Recording, classes: RepositoryClass[], kind: DatabaseKind): Map<string, string> {
  const files = new Map<string, string>();
  const update = `UPDATE_SQL_FILES=1 npx vitest run ${SPEC}`;
  const note = '-- An IN list is shown with three parameters and a multi-row VALUES with one row: each length is a statement of its own.';
  for (const type of classes) {
    // By method, and within a method in the order a call sends them.
    const blocks = [...recording.statements]
      .filter(([label]) => label.startsWith(`${type.name}.`))
      .flatMap(([label, texts]) => [...texts].map(([text, place]) => ({ label, place, text: pretty(text, kind) })))
      .sort((a, b) => a.label.localeCompare(b.label) || a.place - b.place || a.text.localeCompare(b.text))
      .map(({ label, text }) => `-- ${label}\n${text}`);
    if (blocks.length === 0) continue;
    const header = [
      `-- Every statement ${type.name} (${type.file}) sends on ${DIALECT_NAMES[kind]}, as recorded by ${SPEC}.`,
      `-- Generated: change the repository, then ${update}`,
      note,
    ].join('\n');
    files.set(`${basename(type.file, '.ts')}.sql`, `${header}\n\n${blocks.join('\n\n')}\n`);
  }
  if (recording.unattributed.size > 0) {
    const blocks = [...recording.unattributed]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([text, from]) => `-- ${from}\n${pretty(text, kind)}`);
    const header = [`-- The statements sent on ${DIALECT_NAMES[kind]} outside the repositories (transaction control aside), as recorded by ${SPEC}.`, `-- Generated: ${update}`].join('\n');
    files.set('other.sql', `${header}\n\n${blocks.join('\n\n')}\n`);
  }
  return files;
}

/** The statements (comment and text) of a file, for the difference. */
const blocksOf = (content: string) => new Set(content.split('\n\n').filter((block) => block.startsWith('-- ') && block.includes('\n') && !block.startsWith('-- Every') && !block.startsWith('-- The statements')));

function compare(kind: DatabaseKind, files: Map<string, string>): string[] {
  const folder = join(QUERIES, kind);
  const existing = existsSync(folder) ? readdirSync(folder).filter((name) => name.endsWith('.sql')) : [];
  if (UPDATE) {
    mkdirSync(folder, { recursive: true });
    for (const name of existing) if (!files.has(name)) rmSync(join(folder, name));
    for (const [name, content] of files) writeFileSync(join(folder, name), content);
    return [];
  }
  const problems: string[] = [];
  for (const name of new Set([...existing, ...files.keys()])) {
    const checkedIn = existing.includes(name) ? readFileSync(join(folder, name), 'utf8') : '';
    const recorded = files.get(name) ?? '';
    if (checkedIn === recorded) continue;
    const before = blocksOf(checkedIn);
    const after = blocksOf(recorded);
    const lines = [`src/database/queries/${kind}/${name}:`];
    for (const block of after) if (!before.has(block)) lines.push(`+ sent, not in the file:\n${block.replace(/^/gm, '    ')}`);
    for (const block of before) if (!after.has(block)) lines.push(`- in the file, not sent:\n${block.replace(/^/gm, '    ')}`);
    if (lines.length === 1) lines.push('  (the same statements, written differently)');
    problems.push(lines.join('\n'));
  }
  return problems;
}

// ----------------------------------------------------------------------------------------------
// Outside parties: an identity provider's keys, a webhook receiver

const ISSUER = 'https://id.test/realms/blog';
const AUDIENCE = 'blog-api';
const nowS = () => Math.floor(Date.now() / 1000);

class LocalServer {
  readonly received: { path: string; body: string }[] = [];
  private readonly server: Server;

  constructor(answer: (path: string) => { status: number; body?: string }) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.received.push({ path: req.url ?? '', body: Buffer.concat(chunks).toString('utf8') });
        const { status, body } = answer(req.url ?? '');
        res.writeHead(status, { 'content-type': 'application/json' }).end(body);
      });
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((done) => this.server.close(() => done()));
  }
}

// ----------------------------------------------------------------------------------------------
// The workload

interface Parties {
  webhookUrl: string;
  webhookCalls: () => number;
  mint: (subject: string, claims: Record<string, unknown>, iat: number) => Promise<string>;
}

async function workload(app: TestApp, parties: Parties): Promise<void> {
  const http = () => request(app.server);
  const ql = async (query: string, token?: string) => expectData(await graphql(app, query, undefined, token ? { token } : {}));
  const next = (response: request.Response) => /^<([^>]+)>; rel="next"/.exec((response.headers.link as string | undefined) ?? '')?.[1];

  // Sign-in; every request with a token checks its account.
  const admin = await tokenFor(app, ADMIN);
  const alice = await tokenFor(app, ALICE);
  const bob = await tokenFor(app, BOB);
  const aliceId = (await ql('{ me { id } }', alice)).me.id as number;

  // REST reads: pages (first, next, by author), one of each, a post's comments, HTML pages.
  const posts = await http().get('/posts?limit=2').expect(200);
  await http().get(next(posts)!).expect(200);
  const byAuthor = await http().get(`/posts?authorId=${aliceId}&limit=1`).expect(200);
  await http().get(next(byAuthor)!).expect(200);
  const postId = posts.body[0].id as number;
  await http().get(`/posts/${postId}`).expect(200);
  await http().get(`/posts/${postId}`).set('Accept', 'text/html').expect(200);
  await http().get('/posts?limit=2').set('Accept', 'text/html').expect(200);
  const comments = await http().get(`/posts/${postId}/comments?limit=1`).expect(200);
  await http().get(next(comments)!).expect(200);
  await http().get(`/comments/${comments.body[0].id}`).expect(200);
  const users = await http().get('/users?limit=2').expect(200);
  await http().get(next(users)!).expect(200);
  await http().get(`/users/${aliceId}`).expect(200);
  await http().get(`/users/${aliceId}/posts?limit=1`).expect(200);

  // Finding posts (CONTRACT §8): each order past its first page, a tag, the dates, a search by
  // relevance and by title, a non-public state with filters, and their counts.
  for (const query of ['sort=publishedAt', 'sort=-updatedAt', 'sort=title', 'tag=news', 'publishedAfter=2000-01-01T00:00:00Z&publishedBefore=2100-01-01T00:00:00Z', 'q=post', 'q=post&sort=title']) {
    const first = await http().get(`/posts?${query}&limit=1`).expect(200);
    const following = next(first);
    if (following) await http().get(following).expect(200);
  }
  await http().get(`/posts?status=draft&tag=news&tag=tips&authorId=${aliceId}&sort=-publishedAt&limit=1`).set(bearer(alice)).expect(200);
  await ql('{ posts(first: 1, search: "post", tag: ["news"]) { totalCount edges { rank snippet } } }');
  await ql('{ posts(first: 1, orderBy: TITLE_ASC, status: DRAFT) { totalCount nodes { id } } }', alice);

  // GraphQL: lists with counts and batched children, a page after a cursor, the post page, a
  // user with their posts; each planned (GRAPHQL_PLANS: one statement) and unplanned (GRAPHQL_PLANS=off,
  // or a document the plan declines: the resolvers' statements).
  const page = await ql(`{ posts(first: 3) { totalCount pageInfo { endCursor } nodes { id author { name } commentCount comments(first: 2) { body author { name } } } } }`);
  const endCursor = page.posts.pageInfo.endCursor as string;
  const planner = app.app.get(QueryPlanner);
  for (const enabled of [true, false]) {
    planner.enabled = enabled;
    await ql(`{ posts(first: 2, after: "${endCursor}") { pageInfo { hasPreviousPage } nodes { id } } }`);
    await ql(`{ posts(authorId: ${aliceId}, first: 1) { totalCount nodes { id } } }`);
    await ql(`{ post(id: ${postId}) { title author { name avatarUrl } comments { body author { name } } } }`);
    await ql(`{ user(id: ${aliceId}) { posts(first: 2) { title } } }`);
  }
  planner.enabled = true;
  // Planned: the bench's post page with its tags, a front page and a user with every planned relation of their posts.
  await ql(`{ post(id: ${postId}) { title body author { name avatarUrl } comments { body author { name } } tags { slug name } } }`);
  await ql('{ posts(first: 5) { pageInfo { hasNextPage endCursor } edges { cursor node { id title author { name avatarUrl } tags { slug name } } } } }');
  await ql('{ posts(first: 2) { nodes { id comments(first: 2) { body author { name } } } } }');
  await ql(`{ user(id: ${aliceId}) { name avatarUrl posts(first: 2) { title author { name } tags { slug } } } }`);
  await ql('{ users(first: 2) { totalCount nodes { name posts(first: 2) { title } } } }');
  await ql(`{ comment(id: ${comments.body[0].id as number}) { body post { title } author { name } } }`);

  // Posts and comments: create (with the event), change (with and without If-Match), delete.
  const created = (await http().post('/posts').set(bearer(alice)).send({ title: 'SQL', body: 'Readable' }).expect(201)).body;
  await http().post('/posts').set(bearer(admin)).send({ title: 'For Bob', body: 'On his behalf', authorId: (await ql('{ me { id } }', bob)).me.id }).expect(201);
  const changed = await http().patch(`/posts/${created.id}`).set(bearer(alice)).send({ title: 'SQL, read' }).expect(200);
  await http().patch(`/posts/${created.id}`).set(bearer(alice)).set('If-Match', changed.headers.etag as string).send({ title: 'SQL', body: 'Read' }).expect(200);
  // Slugs (CONTRACT §13): one the title leaves nothing of, a new one by PATCH, found by a former one; a preview link made, read and revoked.
  await http().post('/posts').set(bearer(alice)).send({ title: '!!!', body: 'No slug in the title' }).expect(201);
  await http().patch(`/posts/${created.id}`).set(bearer(alice)).send({ slug: 'sql-renamed' }).expect(200);
  await http().get('/posts?slug=sql').expect(200);
  const link = (await http().post(`/posts/${created.id}/previews`).set(bearer(alice)).expect(201)).body as { token: string };
  await http().get(`/posts/${created.id}?preview=${link.token}`).expect(200);
  await http().delete(`/posts/${created.id}/previews`).set(bearer(alice)).expect(204);
  // Languages (CONTRACT §15): a translation of it (its group read), the group on its page, Post.translations batched.
  const translation = (await http().post('/posts').set(bearer(alice)).send({ title: 'SQL auf Deutsch', body: 'Lesbar', locale: 'de', translationOf: { postId: created.id } }).expect(201)).body;
  await http().get(`/posts/${translation.id as number}`).expect(200);
  await ql(`{ posts(first: 2) { nodes { translations { id locale } } } post(id: ${created.id}) { translations { id locale } } }`);
  // A draft's group published first by a translation (the group placed), and lists in a language and in every one.
  const draft = (await http().post('/posts').set(bearer(alice)).send({ title: 'SQL draft', body: 'Later', status: 'draft' }).expect(201)).body;
  await http().post('/posts').set(bearer(alice)).send({ title: 'SQL brouillon', body: 'Publié', locale: 'de', translationOf: { postId: draft.id } }).expect(201);
  await http().get('/posts?locale=de&limit=1').expect(200);
  await http().get('/posts?locale=*&limit=1').expect(200);
  await http().get('/posts?tag=sql&limit=1').set('Accept-Language', 'de').expect(200);
  await ql(`{ posts(first: 1, locale: "de") { totalCount nodes { id } } }`);
  // Its revisions (REST and GraphQL), and a list of one non-public state.
  await http().get(`/posts/${created.id}/revisions?limit=1`).set(bearer(alice)).expect(200);
  await http().get(`/posts/${created.id}/revisions/1`).set(bearer(alice)).expect(200);
  await ql(`{ post(id: ${created.id}) { revisions(first: 2) { number } } }`, alice);
  await http().get('/posts?status=draft&limit=1').set(bearer(alice)).expect(200);
  // Review (CONTRACT §16): a post submitted, approved (through the one write path), its decisions read.
  const submitted = (await http().post('/posts').set(bearer(alice)).send({ title: 'SQL review', body: 'Please', status: 'in_review' }).expect(201)).body as { id: number };
  const review = (await http().post(`/posts/${submitted.id}/reviews`).set(bearer(admin)).send({ decision: 'approve', note: 'Fine' }).expect(201)).body as { id: number };
  await http().get(`/posts/${submitted.id}/reviews?limit=1`).set(bearer(alice)).expect(200);
  await http().get(`/posts/${submitted.id}/reviews/${review.id}`).set(bearer(alice)).expect(200);
  // A scheduled post, published by the scheduler when it is due.
  const due = new Date(Date.now() + 3_600_000);
  await http().post('/posts').set(bearer(alice)).send({ title: 'Later', body: 'Scheduled', status: 'scheduled', publishAt: due.toISOString() }).expect(201);
  await app.app.get(PostScheduler).run(new Date(due.getTime() + 1000));
  const comment = (await http().post(`/posts/${created.id}/comments`).set(bearer(bob)).send({ body: 'First' }).expect(201)).body;
  await http().post(`/posts/${created.id}/comments`).set(bearer(alice)).send({ body: 'Second' }).expect(201);
  const edited = await http().patch(`/comments/${comment.id}`).set(bearer(bob)).send({ body: 'First!' }).expect(200);
  await http().patch(`/comments/${comment.id}`).set(bearer(bob)).set('If-Match', edited.headers.etag as string).send({ body: 'First.' }).expect(200);
  const doomed = (await http().post(`/posts/${created.id}/comments`).set(bearer(bob)).send({ body: 'Gone soon' }).expect(201)).body;
  // Threads: a reply, one comment's replies, the replies of every comment of a page (as each reader's scope), a thread deleted.
  const reply = (await http().post(`/posts/${created.id}/comments`).set(bearer(bob)).send({ body: 'Re', parentId: doomed.id }).expect(201)).body;
  await http().post(`/posts/${created.id}/comments`).set(bearer(bob)).send({ body: 'Re re', parentId: reply.id }).expect(201);
  for (const reader of [undefined, bob, admin]) {
    const as = (test: request.Test) => (reader ? test.set(bearer(reader)) : test);
    await as(http().get(`/posts/${created.id}/comments?parentId=${doomed.id}`)).expect(200);
    await as(http().get(`/posts/${created.id}/comments`)).expect(200);
    await ql(`{ post(id: ${created.id}) { commentCount comments(first: 5) { id replies(first: 2) { id author { name } } } } }`, reader);
    await ql(`{ posts(first: 3) { nodes { commentCount comments(first: 2) { id replies(first: 2) { id } } } } }`, reader);
  }
  await http().delete(`/comments/${doomed.id}`).set(bearer(bob)).expect(204);

  // Moderation: the queue (a page, its count), a status changed in bulk and one at a time.
  const queue = await http().get('/comments?status=hidden&limit=1').set(bearer(admin)).expect(200);
  expect(queue.body).toEqual([]);
  await ql('{ comments(status: SPAM) { totalCount } }', admin);
  await http().patch('/comments').set(bearer(admin)).send([{ id: comment.id, status: 'hidden' }]).expect(200);
  await http().patch(`/comments/${comment.id}`).set(bearer(admin)).send({ status: 'approved' }).expect(200);

  // Users: sign-up, changes (name, If-Match, own password, role), sign-out everywhere, deletion.
  const carol = (await http().post('/users').send({ name: 'Carol', email: 'carol@example.com', password: 'carol-password' }).expect(201)).body;
  await http().post('/users').send({ name: 'Dan', email: 'dan@example.com', password: 'dan-password', avatarUrl: 'https://example.com/dan.png' }).expect(201);
  let carolToken = await tokenFor(app, { email: 'carol@example.com', password: 'carol-password' });
  const renamed = await http().patch(`/users/${carol.id}`).set(bearer(carolToken)).send({ name: 'Carol C.' }).expect(200);
  await http().patch(`/users/${carol.id}`).set(bearer(carolToken)).set('If-Match', renamed.headers.etag as string).send({ avatarUrl: 'https://example.com/c.png' }).expect(200);
  await http().patch(`/users/${carol.id}`).set(bearer(carolToken)).send({ password: 'carol-password-2', currentPassword: 'carol-password' }).expect(200);
  carolToken = await tokenFor(app, { email: 'carol@example.com', password: 'carol-password-2' });
  await http().patch(`/users/${carol.id}`).set(bearer(admin)).send({ role: 'admin' }).expect(200);
  await http().patch(`/users/${carol.id}`).set(bearer(admin)).send({ role: 'author' }).expect(200);
  await http().post('/posts').set(bearer(carolToken)).send({ title: 'Carol writes', body: 'Soon gone' }).expect(201);
  await http().post(`/posts/${created.id}/comments`).set(bearer(carolToken)).send({ body: 'Carol comments' }).expect(201);

  // API keys: create, use (checked, then marked used), list, revoke.
  const key = (await http().post(`/users/${aliceId}/api-keys`).set(bearer(alice)).send({ name: 'CI', scopes: ['read'] }).expect(201)).body;
  await http().get('/posts?limit=1').set(bearer(key.key as string)).expect(200);
  await until('the key marked as used', async () => (await http().get(`/users/${aliceId}/api-keys`).set(bearer(alice)).expect(200)).body[0]?.lastUsedAt);
  await http().delete(`/users/${aliceId}/api-keys/${key.id as number}`).set(bearer(alice)).expect(204);

  // Tags: made, renamed, listed most used first (a page after a cursor), by slug; posts tagged
  // (new and existing tags) and re-tagged; Post.tags and Tag.posts batched; one deleted.
  const tag = (await http().post('/tags').set(bearer(admin)).send({ name: 'News' }).expect(201)).body;
  await http().patch(`/tags/${tag.id as number}`).set(bearer(admin)).send({ name: 'Newsroom' }).expect(200);
  const tagged = (await http().post('/posts').set(bearer(alice)).send({ title: 'Tagged', body: 'b', tags: ['newsroom', 'Release Notes'] }).expect(201)).body;
  await http().patch(`/posts/${tagged.id as number}`).set(bearer(alice)).send({ tags: ['release-notes'] }).expect(200);
  const tags = await http().get('/tags?limit=1').expect(200);
  await http().get(next(tags)!).expect(200);
  await http().get('/tags?slug=newsroom').expect(200);
  await http().get(`/tags/${tag.id as number}`).expect(200);
  await ql('{ posts(first: 3) { nodes { tags { slug postCount posts(first: 2) { id } } } } }');
  const tagPage = await ql('{ tags(first: 1) { totalCount pageInfo { endCursor } } }');
  await ql(`{ tags(first: 1, after: "${tagPage.tags.pageInfo.endCursor as string}") { pageInfo { hasPreviousPage } } }`);
  // A tag only a draft carries: its writer sees it (by a post of theirs), the public does not.
  const drafted = (await http().post('/posts').set(bearer(alice)).send({ title: 'Drafted', body: 'b', status: 'draft', tags: ['Draft Only'] }).expect(201)).body;
  const [hidden] = (await http().get('/tags?slug=draft-only').set(bearer(alice)).expect(200)).body as { id: number }[];
  await http().get(`/tags/${hidden.id}`).set(bearer(alice)).expect(200);
  await http().get(`/tags/${hidden.id}`).expect(404);
  await ql(`{ tag(id: ${hidden.id}) { slug } }`, alice);
  await ql('{ tags(first: 1) { totalCount pageInfo { endCursor } } }', alice);
  await http().patch(`/posts/${drafted.id as number}`).set(bearer(alice)).send({ status: 'published' }).expect(200);
  await http().delete(`/tags/${tag.id as number}`).set(bearer(admin)).expect(204);

  // Syndication: the feed (plain and by tag), and the sitemap with its tags (only public posts' addresses, no bodies).
  await http().get('/feed?limit=2').expect(200);
  await http().get('/feed?tag=release-notes').set('Accept', 'application/rss+xml').expect(200);
  await http().get('/sitemap.xml').expect(200);

  // Webhooks: create, read, deliver to the receiver, change, turn off and on, delete.
  const webhook = (await http().post('/webhooks').set(bearer(admin)).send({ url: `${parties.webhookUrl}/hook`, types: ['POST_CREATED'] }).expect(201)).body;
  await http().get('/webhooks').set(bearer(admin)).expect(200);
  await http().get(`/webhooks/${webhook.id as number}`).set(bearer(admin)).expect(200);
  await http().post('/posts').set(bearer(alice)).send({ title: 'Hooked', body: 'Sent on' }).expect(201);
  await until('the delivery', () => parties.webhookCalls() > 0);
  await until('its attempt recorded', async () => (await http().get(`/webhooks/${webhook.id as number}/deliveries`).set(bearer(admin)).expect(200)).body.length > 0);
  await http().patch(`/webhooks/${webhook.id as number}`).set(bearer(admin)).send({ description: 'To the receiver' }).expect(200);
  await http().patch(`/webhooks/${webhook.id as number}`).set(bearer(admin)).send({ active: false }).expect(200);
  await http().patch(`/webhooks/${webhook.id as number}`).set(bearer(admin)).send({ active: true }).expect(200);
  await http().delete(`/webhooks/${webhook.id as number}`).set(bearer(admin)).expect(204);

  // Single sign-on: a subject's first token (a new user), a later one, a role granted and taken
  // away, its user deleted (an older token is refused), and a newer token starting afresh.
  const sso = (iat: number, roles: string[] = []) => parties.mint('erin', { email: 'erin@sso.example.com', email_verified: true, name: 'Erin', roles }, iat);
  const erinId = (await ql('{ me { id } }', await sso(nowS() - 60))).me.id as number;
  await ql('{ me { id } }', await sso(nowS() - 50));
  await ql('{ me { role } }', await sso(nowS() - 40, ['blog-admin']));
  await ql('{ me { role } }', await sso(nowS() - 30));
  await http().delete(`/users/${erinId}`).set(bearer(admin)).expect(204);
  await http().get('/posts?limit=1').set(bearer(await sso(nowS() - 20))).expect(401);
  await ql('{ me { id } }', await sso(nowS() + 2));

  // Sign-out everywhere; deletions with what they take along (a post's comments, a user's all).
  await http().delete(`/users/${carol.id as number}/tokens`).set(bearer(admin)).expect(204);
  // To the trash, then deleted for good.
  await http().delete(`/posts/${created.id}`).set(bearer(alice)).expect(204);
  await http().delete(`/posts/${created.id}`).set(bearer(alice)).expect(204);
  await http().delete(`/users/${carol.id as number}`).set(bearer(admin)).expect(204);

  // The event log: pages (from the start, by type), a replay by type, post and author (the
  // `events` subscription), then pruned, and a cursor from before that.
  const events = await http().get('/events?limit=2').expect(200);
  await http().get(next(events)!).expect(200);
  await http().get(`/events/${events.body[0].cursor as string}`).expect(200);
  await http().get('/events?types=POST_CREATED,COMMENT_CREATED').expect(200);
  const socket = wsClient((await listen(app)).ws);
  try {
    await socket.connected;
    const replay = new LiveSubscription(
      socket.client,
      `subscription { events(after: "${events.body[0].cursor as string}", types: [POST_CREATED, COMMENT_CREATED], postId: ${created.id as number}, authorId: ${aliceId}) { type } }`,
    );
    expect(await replay.received(1)).toEqual([{ type: 'COMMENT_CREATED' }]);
    replay.dispose();
  } finally {
    await socket.dispose();
  }
  // Media: an upload, its variant made in the background, reads of every door, a change, a cover, a body's image, an avatar, a refused and a done deletion.
  const png = await sharp({ create: { width: 400, height: 300, channels: 3, background: '#c33' } }).png().toBuffer();
  const mediaId = (await http().post('/media').set(bearer(alice)).attach('file', png, 'a.png').expect(201)).body.id as number;
  await http().post('/media').set(bearer(alice)).attach('file', png, 'b.png').expect(201);
  const mediaPage = await http().get('/media?limit=1').set(bearer(alice)).expect(200);
  await http().get(next(mediaPage)!).set(bearer(alice)).expect(200);
  await ql(`{ mediaList(first: 1) { totalCount nodes { id } } media(id: ${mediaId}) { id } }`, alice);
  await http().patch(`/media/${mediaId}`).set(bearer(alice)).send({ focalPoint: { x: 0.5, y: 0.25 } }).expect(200);
  for (let tries = 0; ; tries++) {
    if ((await http().get(`/media/${mediaId}`).set(bearer(alice)).expect(200)).body.variants.length > 0) break;
    if (tries > 200) throw new Error('no variant was made');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await http().get(`/media/${mediaId}/file`).set(bearer(alice)).expect(200);
  const covered = await http().post('/posts').set(bearer(alice)).send({ title: 'Covered', body: 'b', coverImageId: mediaId }).expect(201);
  await http().delete(`/media/${mediaId}`).set(bearer(alice)).expect(409);
  await http().patch(`/posts/${covered.body.id as number}`).set(bearer(alice)).send({ coverImageId: null }).expect(200);
  // An image in a body: recorded, rendered with its variants, and dropped again; a media avatar.
  const showing = await http().post('/posts').set(bearer(alice)).send({ title: 'Shows', body: `![](/media/${mediaId})`, bodyFormat: 'markdown' }).expect(201);
  await http().patch(`/posts/${showing.body.id as number}`).set(bearer(alice)).send({ body: 'none' }).expect(200);
  await http().patch(`/users/${showing.body.authorId as number}`).set(bearer(alice)).send({ avatarUrl: `/media/${mediaId}` }).expect(200);
  await http().patch(`/users/${showing.body.authorId as number}`).set(bearer(alice)).send({ avatarUrl: null }).expect(200);
  // Personal data (CONTRACT §16): Alice's export, every part read page by page (a media item with its variants among them).
  await http().get(`/users/${aliceId}/export`).set(bearer(alice)).set('X-Current-Password', ALICE.password).expect(200);
  const media = app.app.get(MediaRepository);
  await media.jobAttempts(mediaId);
  await media.releaseJob(mediaId);
  await http().delete(`/media/${mediaId}`).set(bearer(alice)).expect(204);
  await app.app.get(MediaVariantsWorker).sweep(new Date(Date.now() + 2 * 3_600_000));
  await app.app.get(EventRetention).prune(new Date(Date.now() + (app.config.eventsRetentionDays + 1) * 86_400_000));
  await http().get(`/events?after=${events.body[0].cursor as string}`).expect(410);
  // The audit log (CONTRACT §16): a filtered page and the next (a cursor with its time, and one of an id only), one entry, the NDJSON export, GraphQL with its count, then pruned.
  const audit = await http().get(`/audit?limit=2&actorId=${aliceId}`).set(bearer(admin)).expect(200);
  await http().get(next(audit)!).set(bearer(admin)).expect(200);
  await http().get(`/audit/${audit.body[0].id as number}`).set(bearer(admin)).expect(200);
  await http().get('/audit?resourceType=post').set(bearer(admin)).set('accept', 'application/x-ndjson').expect(200);
  await ql('{ auditEntries(first: 1, action: "posts.create") { totalCount nodes { id } } }', admin);
  await app.app.get(AuditRetention).prune(new Date(Date.now() + (app.config.auditRetentionDays + 1) * 86_400_000));
}

// ----------------------------------------------------------------------------------------------

describeEachDatabase('the SQL files (src/database/queries)', (kind) => {
  const { base, repositories } = repositoryClasses();
  let app: TestApp;
  let recording: Recording;
  let jwks: LocalServer;
  let receiver: LocalServer;
  let receiverUrl: string;
  let keys: { kid: string; pair: Awaited<ReturnType<typeof generateKeyPair>>; jwk: JWK };
  const mediaDir = mkdtempSync(join(tmpdir(), `sql-queries-media-${kind}-`));

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    keys = { kid: 'k1', pair, jwk: { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' } };
    jwks = new LocalServer(() => ({ status: 200, body: JSON.stringify({ keys: [keys.jwk] }) }));
    receiver = new LocalServer(() => ({ status: 204 }));
    const jwksUrl = `${await jwks.start()}/certs`;
    receiverUrl = await receiver.start();
    app = await startTestApp(kind, {
      env: {
        ADMIN_EMAIL: 'root@example.com',
        ADMIN_PASSWORD: 'root-password',
        RESPONSE_CACHE: 'off',
        // Translations (and the read of a post's group with it) need more than one locale.
        SUPPORTED_LOCALES: 'en,de',
        AUTH_JWKS_URL: jwksUrl,
        AUTH_ISSUER: ISSUER,
        AUTH_AUDIENCE: AUDIENCE,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_TIMEOUT_MS: '1000',
        MEDIA_DIR: mediaDir,
      },
      // From the start: the start-up statements (the first admin, the relay's position) too.
      beforeInit: (nest) => (recording = record(nest, repositories, base)),
    });
  });

  afterAll(async () => {
    await app?.close();
    await jwks?.close();
    await receiver?.close();
    rmSync(mediaDir, { recursive: true, force: true });
  });

  it(`every statement the repositories send is in src/database/queries/${kind} (and nothing else is)`, async () => {
    await workload(app, {
      webhookUrl: receiverUrl,
      webhookCalls: () => receiver.received.length,
      mint: (subject, claims, iat) =>
        new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: keys.kid }).setIssuer(ISSUER).setAudience(AUDIENCE).setSubject(subject).setIssuedAt(iat).setExpirationTime(nowS() + 600).sign(keys.pair.privateKey),
    });
    recording.stop();

    const silent = new Set(SILENT[kind]);
    const uncovered = [
      ...repositories.flatMap((type) => type.methods.map((method) => `${type.name}.${method}`)),
      ...base.methods.map((method) => `${BASE.name}.${method}`),
    ].filter((label) => {
      if (silent.has(label)) return false;
      const [name, method] = label.split('.');
      if (name !== BASE.name) return !recording.covered.has(label);
      return !repositories.some((type) => type.extendsBase && recording.covered.has(`${type.name}.${method}`));
    });
    expect(uncovered, 'repository methods that sent no statement in the workload of this test: give them one').toEqual([]);

    const problems = compare(kind, render(recording, repositories, kind));
    if (problems.length > 0) {
      throw new Error(`The statements sent differ from the checked-in files (${problems.length} file(s)); if the change is meant, run UPDATE_SQL_FILES=1 npx vitest run ${SPEC}\n\n${problems.join('\n\n')}`);
    }
  });
});
