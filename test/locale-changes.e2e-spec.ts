import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALICE, bearer } from './support/auth.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { errorFields, expectProblem } from './support/problems.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * docs/languages.md, "Changing SUPPORTED_LOCALES": a locale taken out of SUPPORTED_LOCALES
 * orphans no post. A service started with en,de writes a German post; the same database opened
 * again with en alone still serves it by id and in lists, lets it be edited (its unchanged locale
 * sent back included) and moved to en with a PATCH, and refuses new German posts (400).
 */
describeEachDatabase('changing SUPPORTED_LOCALES', (kind) => {
  let database: TestDatabase;
  let app: TestApp | undefined;
  let token: string;
  let german: { id: number; slug: string };

  const http = () => request(app!.server);
  const signIn = async () => (await http().post('/tokens').send(ALICE).expect(201)).body.accessToken as string;

  beforeAll(async () => {
    database = await createTestDatabase(kind, { file: true });
    app = await startTestApp(kind, { database, env: { SUPPORTED_LOCALES: 'en,de' } });
    token = await signIn();
    german = (await http().post('/posts').set(bearer(token)).send({ title: 'Guten Morgen', body: 'Das erste Licht', locale: 'de' }).expect(201)).body;
    await app.close();
    app = await startTestApp(kind, { database, env: { SUPPORTED_LOCALES: 'en' } });
    token = await signIn();
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await database?.drop();
  });

  it('the post is still served by id, in its own locale, and listed', async () => {
    const read = await http().get(`/posts/${german.id}`).expect(200);
    expect(read.body.locale).toBe('de');
    expect(read.headers['content-language']).toBe('de');
    const listed = (await http().get('/posts?limit=100').expect(200)).body as { id: number }[];
    expect(listed.map((post) => post.id)).toContain(german.id);
  });

  it('it can still be edited, also when the PATCH sends its unchanged locale back', async () => {
    const patched = await http().patch(`/posts/${german.id}`).set(bearer(token)).send({ title: 'Guten Tag' }).expect(200);
    expect(patched.body).toMatchObject({ title: 'Guten Tag', locale: 'de' });
    const resent = await http().patch(`/posts/${german.id}`).set(bearer(token)).send({ title: 'Guten Abend', locale: 'DE' }).expect(200);
    expect(resent.body).toMatchObject({ title: 'Guten Abend', locale: 'de' });
  });

  it('a new post or another post cannot pick the removed locale: 400 naming locale', async () => {
    const created = await http().post('/posts').set(bearer(token)).send({ title: 'Neu', body: 'Text', locale: 'de' });
    expectProblem(created, 400, 'BAD_USER_INPUT');
    expect(errorFields(created)).toContain('locale');
    const other = (await http().post('/posts').set(bearer(token)).send({ title: 'English', body: 'Text' }).expect(201)).body as { id: number };
    const moved = await http().patch(`/posts/${other.id}`).set(bearer(token)).send({ locale: 'de' });
    expectProblem(moved, 400, 'BAD_USER_INPUT');
    expect(errorFields(moved)).toContain('locale');
  });

  it('a PATCH of its locale moves it to a supported one, after which the old one is refused for it too', async () => {
    const moved = await http().patch(`/posts/${german.id}`).set(bearer(token)).send({ locale: 'en' }).expect(200);
    expect(moved.body.locale).toBe('en');
    expect((await http().get(`/posts/${german.id}`).expect(200)).headers['content-language']).toBe('en');
    expectProblem(await http().patch(`/posts/${german.id}`).set(bearer(token)).send({ locale: 'de' }), 400, 'BAD_USER_INPUT');
  });
});
