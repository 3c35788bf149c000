import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, TEST_DATABASE_URL, type TestDatabase } from './support/databases.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * The audit log made append-only by the database (docs/audit.md, "Append-only on PostgreSQL"):
 * the service runs as a role that may insert entries, prune them and rewrite only their
 * `changes` (the erasure of a deleted user's name and e-mail), while the migrations run as the
 * owner (DATABASE_DIRECT_URL). The service works under those grants, and the role cannot change
 * an entry's other columns or empty the table.
 */
describe.skipIf(!TEST_DATABASE_URL)(`the audit log's grants on PostgreSQL${TEST_DATABASE_URL ? '' : ' (skipped: TEST_DATABASE_URL is not set)'}`, () => {
  const role = `blog_app_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  let database: TestDatabase;
  let app: TestApp | undefined;
  let owner: pg.Client;
  let service: pg.Client;
  const asRole = (url: string) => {
    const parsed = new URL(url);
    parsed.username = role;
    parsed.password = password;
    return parsed.toString();
  };

  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    // The owner migrates and seeds, then hands the service a role of its own.
    await (await startTestApp('postgres', { database })).close();
    owner = new pg.Client({ connectionString: database.url });
    await owner.connect();
    await owner.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
    for (const statement of [
      `GRANT USAGE ON SCHEMA public TO ${role}`,
      `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${role}`,
      `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${role}`,
      `REVOKE UPDATE, TRUNCATE ON audit_entries FROM ${role}`,
      `GRANT UPDATE (changes) ON audit_entries TO ${role}`,
    ]) {
      await owner.query(statement);
    }
    app = await startTestApp('postgres', { database, env: { DATABASE_URL: asRole(database.url), DATABASE_DIRECT_URL: database.url, SEED_DEMO_DATA: 'false' } });
    service = new pg.Client({ connectionString: asRole(database.url) });
    await service.connect();
  }, 60_000);

  afterAll(async () => {
    await service?.end();
    await app?.close();
    await owner?.query(`DROP OWNED BY ${role}`).catch(() => undefined);
    await owner?.query(`DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
    await owner?.end();
    await database?.drop();
  });

  it('the service writes its entries under those grants', async () => {
    const token = await tokenFor(app!, ALICE);
    const created = await request(app!.server).post('/posts').set(bearer(token)).send({ title: 'Under grants', body: 'b' }).expect(201);
    const { rows } = await service.query<{ action: string }>('SELECT action FROM audit_entries WHERE resource_type = $1 AND resource_id = $2', ['post', created.body.id]);
    expect(rows).toEqual([{ action: 'posts.create' }]);
  });

  it("the role cannot change what an entry says nor empty the table; it may prune and erase `changes`", async () => {
    await expect(service.query(`UPDATE audit_entries SET action = 'posts.delete'`)).rejects.toMatchObject({ code: '42501' });
    await expect(service.query('UPDATE audit_entries SET actor_id = NULL, at = now()')).rejects.toMatchObject({ code: '42501' });
    await expect(service.query('TRUNCATE audit_entries')).rejects.toMatchObject({ code: '42501' });
    await service.query(`UPDATE audit_entries SET changes = changes WHERE id = (SELECT MIN(id) FROM audit_entries)`);
    const { rowCount } = await service.query(`DELETE FROM audit_entries WHERE at < now() - interval '400 days'`);
    expect(rowCount).toBe(0);
  });
});
