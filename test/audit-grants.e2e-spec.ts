import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRetention } from '../src/audit/audit-retention.js';
import { ADMIN, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, DATABASES, type TestDatabase } from './support/databases.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/** The SQL of docs/audit.md's "Append-only on PostgreSQL", as a reader would run it. */
function grantsOfDocs(role: string): string {
  const page = readFileSync('docs/audit.md', 'utf8');
  const section = page.slice(page.indexOf('## Append-only on PostgreSQL'));
  const block = /```sql\n([\s\S]*?)```/.exec(section);
  if (!block) throw new Error('docs/audit.md has no SQL block under "Append-only on PostgreSQL"');
  return block[1].replaceAll('blog_service', role).replace(/PASSWORD '[^']*'/, `PASSWORD '${role}'`);
}

async function asClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => 'done',
    (error: { code?: string }) => error.code ?? 'error',
  );

/**
 * Append-only on PostgreSQL (docs/audit.md): with the grants the docs give, the service runs as
 * a role of its own — it signs in, writes and records, reads and prunes the log, rewrites
 * `changes` — and that role can neither change another column of an entry nor empty the table.
 */
const suite = DATABASES.includes('postgres') ? describe : describe.skip;
suite('the audit log, append-only by grants [postgres]', () => {
  const role = `blog_service_${process.pid}_${randomBytes(3).toString('hex')}`;
  let database: TestDatabase;
  let service: TestApp;
  let roleUrl: string;

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // The owner migrates (and seeds), then hands the service its grants.
    const owner = await startTestApp('postgres', { database });
    await owner.close();
    await asClient(database.url, (client) => client.query(grantsOfDocs(role)));
    const url = new URL(database.url);
    url.username = role;
    url.password = role;
    roleUrl = url.toString();
    service = await startTestApp('postgres', { database: { ...database, url: roleUrl, directUrl: undefined } });
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await database?.drop();
    // Its grants went with the database.
    if (process.env.TEST_DATABASE_URL) await asClient(process.env.TEST_DATABASE_URL, (client) => client.query(`DROP ROLE IF EXISTS ${role}`));
  });

  it('the service runs as that role: writes are recorded, the log reads and prunes', async () => {
    const token = await tokenFor(service, ADMIN);
    const post = await request(service.server).post('/posts').set(bearer(token)).send({ title: 'Under grants', body: 'b' }).expect(201);
    const entries = (await request(service.server).get(`/audit?resourceType=post&resourceId=${post.body.id}`).set(bearer(token)).expect(200)).body as { action: string }[];
    expect(entries.map((entry) => entry.action)).toEqual(['posts.create']);
    expect(await service.app.get(AuditRetention).prune(new Date(Date.now() + 400 * 86_400_000))).toBeGreaterThanOrEqual(1);
  });

  it('as that role: `changes` may be rewritten and entries deleted; any other column, or TRUNCATE, is permission denied', async () => {
    await asClient(roleUrl, async (client) => {
      await client.query(`INSERT INTO audit_entries (at, action, resource_type, changes) VALUES (now(), 'users.update', 'user', '{"name":{"from":"A","to":"B"}}')`);
      expect(await codeOf(client.query(`UPDATE audit_entries SET changes = '{}'`))).toBe('done');
      expect(await codeOf(client.query(`UPDATE audit_entries SET action = 'posts.delete'`))).toBe('42501');
      expect(await codeOf(client.query(`UPDATE audit_entries SET at = now() - interval '1 day', changes = '{}'`))).toBe('42501');
      expect(await codeOf(client.query('TRUNCATE audit_entries'))).toBe('42501');
      expect(await codeOf(client.query('ALTER TABLE audit_entries DROP COLUMN ip'))).toBe('42501');
      expect(await codeOf(client.query(`DELETE FROM audit_entries WHERE action = 'users.update'`))).toBe('done');
    });
  });
});
