import halfred from 'halfred';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * A stock HAL client (halfred) reads our collections: it finds the items under _embedded and
 * follows _links.next to the end, with no look at the Link header.
 */
describeEachDatabase('HAL collections read by halfred', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
    halfred.enableValidation(true);
  });
  afterAll(() => app?.close());

  const hal = async (path: string) => {
    const response = await request(app.server).get(path).set('accept', 'application/hal+json').expect(200);
    expect(response.headers['content-type']).toMatch(/^application\/hal\+json/);
    return halfred.parse(JSON.parse(response.text));
  };

  for (const [path, plural] of [
    ['/posts?limit=2', 'posts'],
    ['/users?limit=2', 'users'],
    ['/posts/1/comments?limit=1', 'comments'],
    ['/users/2/posts?limit=1', 'posts'],
  ] as const) {
    it(`${path}: every page through _links.next holds what the JSON list holds, in order`, async () => {
      const ids: unknown[] = [];
      let page = await hal(path);
      expect(page.link('self')?.href).toBe(path);
      for (let pages = 0; pages < 50; pages++) {
        expect(page.validationIssues()).toEqual([]);
        const items = page.embeddedArray(plural) ?? [];
        for (const item of items) {
          expect(item.link('self')?.href).toBe(`/${plural}/${String(item.id)}`);
          ids.push(item.id);
        }
        const next = page.link('next');
        if (!next) break;
        page = await hal(next.href);
      }
      const all = await request(app.server).get(path.replace(/limit=\d+/, 'limit=100')).expect(200);
      expect(Array.isArray(all.body)).toBe(true);
      expect(ids).toEqual(all.body.map((item: { id: number }) => item.id));
      expect(ids.length).toBeGreaterThan(1);
    });
  }

  it('/events?limit=2: halfred follows next to the end and each event\'s self to that event', async () => {
    const token = await tokenFor(app, ALICE);
    for (const title of ['First', 'Second', 'Third']) await request(app.server).post('/posts').set(bearer(token)).send({ title, body: 'b' }).expect(201);
    const cursors: string[] = [];
    let page = await hal('/events?limit=2');
    for (let pages = 0; pages < 50; pages++) {
      expect(page.validationIssues()).toEqual([]);
      for (const item of page.embeddedArray('events') ?? []) {
        const self = item.link('self');
        expect(self?.href).toBe(`/events/${String(item.cursor)}`);
        const alone = await hal(self!.href);
        expect(alone.validationIssues()).toEqual([]);
        expect(alone.original()).toEqual(item.original());
        expect(alone.link('self')?.href).toBe(self!.href);
        cursors.push(String(item.cursor));
      }
      const next = page.link('next');
      if (!next) break;
      page = await hal(next.href);
    }
    const all = await request(app.server).get('/events?limit=100').expect(200);
    expect(cursors).toEqual(all.body.map((event: { cursor: string }) => event.cursor));
    expect(cursors.length).toBeGreaterThanOrEqual(3);
  });
});
