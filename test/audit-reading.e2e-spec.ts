import request from 'supertest';
import { DataSource } from 'typeorm';
import { beforeAll, describe, expect, it } from 'vitest';
import { AuditRetention } from '../src/audit/audit-retention.js';
import { EXPORT_BATCH } from '../src/audit/audit-entries.service.js';
import { bearer } from './support/auth.js';
import { insertAuditRows } from './support/audit-rows.js';
import { useApp } from './support/fixture.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { ISO, nextLink, parseXml } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';

const DAY_MS = 86_400_000;
const ENTRY_KEYS = ['_links', 'action', 'actor', 'at', 'changes', 'id', 'ip', 'requestId', 'resource', 'traceId', 'userAgent'];

interface Entry {
  id: number;
  at: string;
  actor: { userId: number | null; credential: string | null; keyId?: number };
  action: string;
  resource: { type: string; id: number | null };
  changes: Record<string, { from: unknown; to: unknown }>;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
  traceId: string | null;
  _links: { self: { href: string } };
}

/**
 * Reading the audit log (CONTRACT §16): GET /audit and /audit/{id} for admins in every format,
 * filtered and paged newest first; the whole filtered log as NDJSON; auditEntries over GraphQL;
 * no API that changes or deletes an entry; and the retention that prunes old entries.
 */
describeEachDatabase('reading the audit log', (kind) => {
  const app = useApp(kind, { env: { RESPONSE_CACHE: 'off' }, signIn: ['admin', 'alice', 'editor'], timeout: 60_000 });
  const http = () => request(app.server);
  const asAdmin = () => bearer(app.tokens.admin);
  const idOf = (user: 'admin' | 'alice') => Number((JSON.parse(Buffer.from(app.tokens[user].split('.')[1], 'base64url').toString()) as { sub: string }).sub);
  let postId: number;

  beforeAll(async () => {
    const created = await http().post('/posts').set(bearer(app.tokens.alice)).set('user-agent', 'reader-test/1.0').set('x-request-id', 'req-read-1').send({ title: 'Read me', body: 'First', status: 'draft' }).expect(201);
    postId = created.body.id as number;
    await http().patch(`/posts/${postId}`).set(bearer(app.tokens.alice)).send({ title: 'Read me again' }).expect(200);
    await http().patch(`/posts/${postId}`).set(bearer(app.tokens.alice)).send({ status: 'published' }).expect(200);
  });

  describe('who may read it', () => {
    it('anonymous: 401 with WWW-Authenticate; authors and editors: 403 FORBIDDEN; admins: 200 (the list and one entry)', async () => {
      const [first] = (await http().get('/audit?limit=1').set(asAdmin()).expect(200)).body as Entry[];
      for (const path of ['/audit', `/audit/${first.id}`, '/audit?action=posts.update']) {
        const anonymous = await http().get(path).expect(401);
        expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
        for (const user of ['alice', 'editor'] as const) {
          const refused = await http().get(path).set(bearer(app.tokens[user])).expect(403);
          expect(refused.body.code).toBe('FORBIDDEN');
        }
      }
      await http().get(`/audit/${first.id}`).set(asAdmin()).expect(200);
      const ndjson = await http().get('/audit').set(bearer(app.tokens.alice)).set('accept', 'application/x-ndjson').expect(403);
      expect(ndjson.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it("an admin's API key: with `write` it reads the log (its entries name the key); a `read` key is 403 INSUFFICIENT_SCOPE", async () => {
      const keyOf = async (scopes: string[]) =>
        (await http().post(`/users/${idOf('admin')}/api-keys`).set(asAdmin()).send({ name: `Audit ${scopes.join()}`, scopes }).expect(201)).body as { id: number; key: string };
      const writer = await keyOf(['read', 'write']);
      const reader = await keyOf(['read']);
      const post = await http().post('/posts').set(bearer(writer.key)).send({ title: 'Keyed', body: 'b' }).expect(201);
      const [keyed] = (await http().get(`/audit?resourceType=post&resourceId=${post.body.id}`).set(bearer(writer.key)).expect(200)).body as Entry[];
      expect(keyed.actor).toEqual({ userId: idOf('admin'), credential: 'api-key', keyId: writer.id });
      expect(expectData(await graphql(app, '{ auditEntries(first: 1) { nodes { id } } }', undefined, { token: writer.key })).auditEntries.nodes).toHaveLength(1);
      expect((await http().get('/audit').set(bearer(reader.key)).expect(403)).body.code).toBe('INSUFFICIENT_SCOPE');
      expectError(await graphql(app, '{ auditEntries { nodes { id } } }', undefined, { token: reader.key }), 'INSUFFICIENT_SCOPE', ['auditEntries']);
    });

    it('GraphQL: FORBIDDEN for others, UNAUTHENTICATED anonymous', async () => {
      expectError(await graphql(app, '{ auditEntries { nodes { id } } }', undefined, { token: app.tokens.alice }), 'FORBIDDEN', ['auditEntries']);
      expectError(await graphql(app, '{ auditEntries { nodes { id } } }'), 'UNAUTHENTICATED', ['auditEntries']);
    });
  });

  describe('GET /audit', () => {
    it('an entry has the shape of CONTRACT §16, changes parsed; GET /audit/{id} shows it as the list does; 404 for none', async () => {
      const response = await http().get(`/audit?resourceType=post&resourceId=${postId}`).set(asAdmin()).expect(200);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const entries = response.body as Entry[];
      expect(entries.map((entry) => entry.action)).toEqual(['posts.publish', 'posts.update', 'posts.create']);
      for (const entry of entries) {
        expect(Object.keys(entry).sort()).toEqual(ENTRY_KEYS);
        expect(entry.at).toMatch(ISO);
        expect(entry.actor).toEqual({ userId: idOf('alice'), credential: 'token' });
        expect(entry.resource).toEqual({ type: 'post', id: postId });
        expect(entry._links).toEqual({ self: { href: `/audit/${entry.id}` } });
      }
      const created = entries[2];
      expect(created).toMatchObject({ userAgent: 'reader-test/1.0', requestId: 'req-read-1' });
      expect(created.changes.title).toEqual({ from: null, to: 'Read me' });
      expect(entries[1].changes.title).toEqual({ from: 'Read me', to: 'Read me again' });
      const one = await http().get(`/audit/${created.id}`).set(asAdmin()).expect(200);
      expect(one.body).toEqual(created);
      expect(one.headers.etag).toMatch(/^"/);
      await http().get(`/audit/${created.id}`).set(asAdmin()).set('if-none-match', one.headers.etag as string).expect(304);
      expect((await http().get('/audit/999999').set(asAdmin()).expect(404)).body.code).toBe('NOT_FOUND');
      await http().get('/audit/abc').set(asAdmin()).expect(400);
    });

    it('newest first, paged by cursor with Link rel="next" keeping the filters, without repeats or gaps', async () => {
      await insertAuditRows(app, kind, { count: 7, actorId: idOf('admin'), action: 'tags.create', resourceType: 'tag' });
      const seen: Entry[] = [];
      let next: string | null = '/audit?resourceType=tag&limit=3';
      while (next !== null) {
        const page = await http().get(next).set(asAdmin()).expect(200);
        seen.push(...(page.body as Entry[]));
        next = nextLink(page);
        if (next !== null) expect(next).toMatch(/^\/audit\?limit=3&resourceType=tag&cursor=/);
      }
      expect(seen).toHaveLength(7);
      expect(new Set(seen.map((entry) => entry.id)).size).toBe(7);
      const times = seen.map((entry) => Date.parse(entry.at));
      expect(times).toEqual([...times].sort((a, b) => b - a));
    });

    it('filters: actorId, action, resourceType with resourceId, after and before (exclusive)', async () => {
      const mine = (await http().get(`/audit?actorId=${idOf('alice')}&limit=100`).set(asAdmin()).expect(200)).body as Entry[];
      expect(mine.length).toBeGreaterThanOrEqual(3);
      expect(mine.every((entry) => entry.actor.userId === idOf('alice'))).toBe(true);
      const updates = (await http().get(`/audit?action=posts.update&limit=100`).set(asAdmin()).expect(200)).body as Entry[];
      expect(updates.length).toBeGreaterThanOrEqual(1);
      expect(updates.every((entry) => entry.action === 'posts.update')).toBe(true);
      const all = (await http().get(`/audit?resourceType=post&resourceId=${postId}`).set(asAdmin()).expect(200)).body as Entry[];
      const [newest, middle, oldest] = all;
      const between = (await http().get(`/audit?resourceType=post&resourceId=${postId}&after=${oldest.at}&before=${newest.at}`).set(asAdmin()).expect(200)).body as Entry[];
      // Exclusive at both ends (entries of one millisecond would be in neither).
      for (const entry of between) expect(Date.parse(entry.at) > Date.parse(oldest.at) && Date.parse(entry.at) < Date.parse(newest.at)).toBe(true);
      if (Date.parse(middle.at) > Date.parse(oldest.at) && Date.parse(middle.at) < Date.parse(newest.at)) expect(between.map((entry) => entry.id)).toEqual([middle.id]);
      const sinceOldest = (await http().get(`/audit?resourceType=post&resourceId=${postId}&after=${oldest.at}`).set(asAdmin()).expect(200)).body as Entry[];
      expect(sinceOldest.map((entry) => entry.id)).not.toContain(oldest.id);
      const untilNewest = (await http().get(`/audit?resourceType=post&resourceId=${postId}&before=${newest.at}`).set(asAdmin()).expect(200)).body as Entry[];
      expect(untilNewest.map((entry) => entry.id)).not.toContain(newest.id);
      expect(untilNewest.map((entry) => entry.id)).toContain(oldest.id);
    });

    it('bad filters are 400 naming the field: an unknown action or resource type, a malformed time, resourceId alone, a bad cursor or limit', async () => {
      const cases: [string, string][] = [
        ['action=posts.explode', 'action'],
        ['resourceType=planet', 'resourceType'],
        ['after=yesterday', 'after'],
        ['before=2026-13-01T00:00:00Z', 'before'],
        ['resourceId=3', 'resourceId'],
        ['actorId=0', 'actorId'],
        ['cursor=nonsense', 'cursor'],
        ['limit=101', 'limit'],
      ];
      for (const [query, field] of cases) {
        const response = await http().get(`/audit?${query}`).set(asAdmin());
        expect(response.status, query).toBe(400);
        expect((response.body.errors as { field: string }[]).map((error) => error.field), query).toContain(field);
        // The same with NDJSON: refused before anything is written.
        const streamed = await http().get(`/audit?${query}`).set(asAdmin()).set('accept', 'application/x-ndjson');
        expect(streamed.status, query).toBe(400);
        expect(streamed.headers['content-type']).toMatch(/^application\/problem\+json/);
      }
    });

    it('every format: HAL collection, XML, HTML; 406 for a type it does not serve', async () => {
      const path = `/audit?resourceType=post&resourceId=${postId}`;
      const hal = await http().get(path).set(asAdmin()).set('accept', 'application/hal+json').expect(200);
      expect(hal.headers['content-type']).toBe('application/hal+json; charset=utf-8');
      expect(hal.body._links.self.href).toBe(path);
      expect(hal.body._embedded.auditEntries).toHaveLength(3);
      expect(hal.body._embedded.auditEntries[0]._links.self.href).toMatch(/^\/audit\/\d+$/);
      const xml = await http().get(path).set(asAdmin()).set('accept', 'application/xml').expect(200);
      const root = parseXml(xml.text);
      expect(root.name).toBe('auditEntries');
      expect(root.children.map((child) => child.name)).toEqual(['auditEntry', 'auditEntry', 'auditEntry']);
      const entry = root.children[2];
      expect(entry.children.find((child) => child.name === 'action')?.text).toBe('posts.create');
      expect(entry.children.find((child) => child.name === 'actor')?.children.map((child) => child.name)).toEqual(['userId', 'credential']);
      expect(entry.children.find((child) => child.name === 'link')?.attributes).toMatchObject({ rel: 'self' });
      const html = await http().get(path).set(asAdmin()).set('accept', 'text/html').expect(200);
      expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(html.text).toContain('href="/audit/');
      const one = await http().get(hal.body._embedded.auditEntries[0]._links.self.href).set(asAdmin()).set('accept', 'text/html').expect(200);
      expect(one.text).toContain('posts.publish');
      const refused = await http().get(path).set(asAdmin()).set('accept', 'image/png').expect(406);
      expect(refused.body.detail).toContain('application/x-ndjson');
      // NDJSON is the list's alone.
      await http().get(hal.body._embedded.auditEntries[0]._links.self.href).set(asAdmin()).set('accept', 'application/x-ndjson').expect(406);
    });
  });

  describe('NDJSON export', () => {
    it('the whole filtered log, one entry a line, newest first, across batches, as the list shows each entry', async () => {
      const total = 2 * EXPORT_BATCH + 37;
      await insertAuditRows(app, kind, { count: total, actorId: null, action: 'comments.moderate', resourceType: 'comment' });
      const response = await http().get('/audit?action=comments.moderate').set(asAdmin()).set('accept', 'application/x-ndjson').buffer(true).parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done(null, text));
      }).expect(200);
      expect(response.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
      expect(response.headers.vary).toMatch(/Accept/i);
      const text = response.body as string;
      expect(text.endsWith('\n')).toBe(true);
      const lines = text.slice(0, -1).split('\n').map((line) => JSON.parse(line) as Entry);
      expect(lines).toHaveLength(total);
      expect(new Set(lines.map((entry) => entry.id)).size).toBe(total);
      expect(lines.every((entry) => entry.action === 'comments.moderate' && entry.actor.credential === 'system' && entry.actor.userId === null)).toBe(true);
      const keys = lines.map((entry) => [Date.parse(entry.at), entry.id] as const);
      for (let index = 1; index < keys.length; index++) {
        const [at, id] = keys[index];
        const [previousAt, previousId] = keys[index - 1];
        expect(at < previousAt || (at === previousAt && id < previousId)).toBe(true);
      }
      const [first] = (await http().get('/audit?action=comments.moderate&limit=1').set(asAdmin()).expect(200)).body as Entry[];
      expect(lines[0]).toEqual(first);
      // HEAD: the headers, nothing read.
      const head = await http().head('/audit').set(asAdmin()).set('accept', 'application/x-ndjson').expect(200);
      expect(head.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    });

    it('an export with no entry is an empty body', async () => {
      const response = await http().get('/audit?action=webhooks.delete').set(asAdmin()).set('accept', 'application/x-ndjson').expect(200);
      expect(response.text ?? '').toBe('');
    });
  });

  describe('GraphQL', () => {
    const QUERY = `query($first: Int, $after: String, $actorId: Int, $action: String, $resourceType: String, $resourceId: Int, $recordedAfter: DateTime, $recordedBefore: DateTime) {
      auditEntries(first: $first, after: $after, actorId: $actorId, action: $action, resourceType: $resourceType, resourceId: $resourceId, recordedAfter: $recordedAfter, recordedBefore: $recordedBefore) {
        totalCount
        pageInfo { hasNextPage endCursor }
        edges { cursor }
        nodes { id at action actor { userId credential keyId } resource { type id } changes ip userAgent requestId traceId }
      }
    }`;

    it('auditEntries: the entries GET /audit shows, filtered, with totalCount and cursors', async () => {
      const data = expectData(await graphql(app, QUERY, { resourceType: 'post', resourceId: postId, first: 2 }, { token: app.tokens.admin }));
      const rest = (await http().get(`/audit?resourceType=post&resourceId=${postId}`).set(asAdmin()).expect(200)).body as Entry[];
      const connection = data.auditEntries;
      expect(connection.totalCount).toBe(3);
      expect(connection.pageInfo.hasNextPage).toBe(true);
      expect(connection.nodes.map((node: { id: number }) => node.id)).toEqual(rest.slice(0, 2).map((entry) => entry.id));
      const [node] = connection.nodes;
      expect(node).toMatchObject({ action: 'posts.publish', actor: { userId: idOf('alice'), credential: 'TOKEN', keyId: null }, resource: { type: 'post', id: postId } });
      expect(node.changes).toEqual(rest[0].changes);
      expect(node.at).toBe(rest[0].at);
      const second = expectData(await graphql(app, QUERY, { resourceType: 'post', resourceId: postId, first: 2, after: connection.pageInfo.endCursor }, { token: app.tokens.admin }));
      expect(second.auditEntries.nodes.map((entry: { id: number }) => entry.id)).toEqual([rest[2].id]);
      expect(second.auditEntries.pageInfo.hasNextPage).toBe(false);
      const later = expectData(await graphql(app, QUERY, { resourceType: 'post', resourceId: postId, recordedBefore: rest[0].at }, { token: app.tokens.admin }));
      expect(later.auditEntries.nodes.map((entry: { id: number }) => entry.id)).not.toContain(rest[0].id);
      const counted = expectData(await graphql(app, QUERY, { action: 'comments.moderate', first: 1 }, { token: app.tokens.admin }));
      expect(counted.auditEntries.totalCount).toBe(2 * EXPORT_BATCH + 37);
    });

    it('bad arguments: BAD_USER_INPUT (an unknown action, resourceId alone, a bad cursor)', async () => {
      expectError(await graphql(app, QUERY, { action: 'posts.explode' }, { token: app.tokens.admin }), 'BAD_USER_INPUT', ['auditEntries']);
      expectError(await graphql(app, QUERY, { resourceId: 1 }, { token: app.tokens.admin }), 'BAD_USER_INPUT', ['auditEntries']);
      expectError(await graphql(app, QUERY, { after: 'nonsense' }, { token: app.tokens.admin }), 'BAD_USER_INPUT', ['auditEntries']);
      expectError(await graphql(app, QUERY, { recordedAfter: 'yesterday' }, { token: app.tokens.admin }), 'BAD_USER_INPUT', ['auditEntries']);
    });
  });

  describe('entries cannot be changed or deleted through any API', () => {
    it('PUT, PATCH, DELETE and POST on /audit and /audit/{id} are 405 with Allow, and the entry is still there', async () => {
      const [entry] = (await http().get('/audit?limit=1').set(asAdmin()).expect(200)).body as Entry[];
      for (const path of ['/audit', `/audit/${entry.id}`]) {
        for (const method of ['put', 'patch', 'delete', 'post'] as const) {
          const response = await http()[method](path).set(asAdmin()).send({ action: 'posts.delete' });
          expect(response.status, `${method} ${path}`).toBe(405);
          expect(response.headers.allow, `${method} ${path}`).toMatch(/^GET, HEAD(, OPTIONS)?$/);
        }
      }
      expect((await http().get(`/audit/${entry.id}`).set(asAdmin()).expect(200)).body).toEqual(entry);
    });

    it('no GraphQL mutation names the audit log, and none takes or returns an AuditEntry', async () => {
      const data = expectData(await graphql(app, '{ __schema { mutationType { fields { name type { name ofType { name ofType { name } } } args { name } } } } }'));
      const fields = data.__schema.mutationType.fields as { name: string; type: unknown; args: { name: string }[] }[];
      expect(fields.length).toBeGreaterThan(10);
      expect(fields.filter((field) => /audit/i.test(field.name) || /Audit/.test(JSON.stringify(field.type)))).toEqual([]);
    });
  });

  // Last: it prunes the log.
  it('retention: entries older than AUDIT_RETENTION_DAYS are pruned in batches, newer ones stay; with the clock moved past it, they go too', async () => {
    const days = app.config.auditRetentionDays;
    expect(days).toBe(365);
    const dataSource = app.app.get(DataSource);
    const count = async () => Number((await dataSource.query<{ n: number | string }[]>('SELECT COUNT(*) AS n FROM audit_entries'))[0].n);
    const before = await count();
    // Older than the retention: a year and a day ago and beyond, more than one batch.
    await insertAuditRows(app, kind, { count: 1500, ageSeconds: (days + 1) * 86_400, action: 'tags.delete', resourceType: 'tag' });
    expect(await count()).toBe(before + 1500);
    const retention = app.app.get(AuditRetention);
    expect(await retention.prune()).toBe(1500);
    expect(await count()).toBe(before);
    expect((await http().get('/audit?action=tags.delete').set(asAdmin()).expect(200)).body).toEqual([]);
    // A day short of the retention later, nothing recent goes; past it, every entry of now does.
    expect(await retention.prune(new Date(Date.now() + (days - 1) * DAY_MS))).toBe(0);
    expect(await count()).toBe(before);
    expect(await retention.prune(new Date(Date.now() + (days + 1) * DAY_MS))).toBe(before);
    expect(await count()).toBe(0);
  });
});
