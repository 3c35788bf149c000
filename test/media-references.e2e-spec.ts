import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import request from 'supertest';
import { afterAll, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { errorFields, expectProblem } from './support/problems.js';
import { createPost, createUser } from './support/resources.js';
import { useApp } from './support/fixture.js';
import { describeEachDatabase } from './support/test-app.js';
import { pollUntil } from './support/poll.js';

interface MediaBody {
  id: number;
  width: number;
  height: number;
  variants: { name: string; width: number; href: string }[];
}

function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 20, g: 90, b: 160 } } })
    .png()
    .toBuffer();
}

/** Media in post bodies and as avatars (CONTRACT §13, §14): rendered with srcset and alt, public once a published post shows them. */
describeEachDatabase('media references', (kind) => {
  // Made now: useApp starts the application in its beforeAll, before any later hook runs.
  const mediaDir = mkdtempSync(join(tmpdir(), `media-refs-${kind}-`));
  const app = useApp(kind, {
    signIn: ['admin', 'alice', 'bob', 'editor'],
    timeout: 60_000,
    get env() {
      return { RESPONSE_CACHE: 'off', MEDIA_DIR: mediaDir, MEDIA_VARIANT_WIDTHS: '64,128,4000' };
    },
  });
  const http = () => request(app.server);

  afterAll(() => rm(mediaDir, { recursive: true, force: true }));

  async function uploaded(width: number, height: number, token = app.tokens.alice, alt?: string): Promise<MediaBody> {
    let call = http().post('/media').set(bearer(token));
    if (alt !== undefined) call = call.field('alt', alt);
    const response = await call.attach('file', await png(width, height), { filename: 'image.png', contentType: 'application/octet-stream' });
    expect(response.status, response.text).toBe(201);
    return response.body as MediaBody;
  }

  /** The item once its variants narrower than it are made. */
  async function withVariants(item: MediaBody, count: number, token = app.tokens.alice): Promise<MediaBody> {
    const done = await pollUntil(() => http().get(`/media/${item.id}`).set(bearer(token)), (response) => response.body.variants?.length === count, 'the variants');
    return done.body as MediaBody;
  }

  /** What others (anonymous, and bob) get for the item and its file. */
  async function othersSee(id: number): Promise<number[]> {
    const responses = await Promise.all([http().get(`/media/${id}`), http().get(`/media/${id}/file`), http().get(`/media/${id}`).set(bearer(app.tokens.bob))]);
    return responses.map((response) => response.status);
  }

  it('a draft showing an image keeps it private until it is published; the body renders its variants as srcset, its size and alt', async () => {
    const item = await withVariants(await uploaded(300, 150, app.tokens.alice, 'A blue field'), 2);
    const draft = await createPost(app, app.tokens.alice, { status: 'draft', bodyFormat: 'markdown', body: `Look:\n\n![](/media/${item.id})` });
    expect(await othersSee(item.id)).toEqual([404, 404, 404]);
    expect(draft.bodyHtml).toBe(
      `<p>Look:</p>\n<p><img src="/media/${item.id}/file" srcset="/media/${item.id}/file?variant=w64 64w, /media/${item.id}/file?variant=w128 128w, /media/${item.id}/file 300w" sizes="(max-width: 300px) 100vw, 300px" width="300" height="150" alt="A blue field" /></p>`,
    );

    const published = await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' });
    expect(published.status, published.text).toBe(200);
    expect(await othersSee(item.id)).toEqual([200, 200, 200]);

    // The author's alt wins; a PATCH that removes the image makes it private again.
    const withAlt = await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ body: `<img src="/media/${item.id}/file" alt="Mine">`, bodyFormat: 'html' });
    expect(withAlt.body.bodyHtml).toContain('alt="Mine"');
    expect(withAlt.body.bodyHtml).toContain('srcset=');
    expect(await othersSee(item.id)).toEqual([200, 200, 200]);
    const without = await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ body: 'No image now' });
    expect(without.status, without.text).toBe(200);
    expect(await othersSee(item.id)).toEqual([404, 404, 404]);
  });

  it("another user's private image in a body stays private and is left as written; an editor's use of it makes it public", async () => {
    const bobs = await uploaded(40, 40, app.tokens.bob, 'Bob only');
    const body = `![x](/media/${bobs.id})`;
    const post = await createPost(app, app.tokens.alice, { bodyFormat: 'markdown', body });
    expect(post.bodyHtml).toBe(`<p><img src="/media/${bobs.id}" alt="x" /></p>`);
    expect((await http().get(`/media/${bobs.id}/file`)).status).toBe(404);
    expect((await http().get(`/media/${bobs.id}`).set(bearer(app.tokens.alice))).status).toBe(404);
    // Rendering again as alice (a title change does not, a body change does) records nothing either.
    expect((await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ body: `${body} again` })).status).toBe(200);
    expect((await http().get(`/media/${bobs.id}/file`)).status).toBe(404);
    // An editor sees every item: their write of the body records it.
    const byEditor = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.editor)).send({ body });
    expect(byEditor.body.bodyHtml).toContain(`src="/media/${bobs.id}/file" srcset="/media/${bobs.id}/file 40w"`);
    expect((await http().get(`/media/${bobs.id}/file`)).status).toBe(200);
  });

  it('an avatar /media/{id} makes the item public; an item that does not exist or the writer may not see is 400 naming avatarUrl', async () => {
    const user = await createUser(app);
    const own = await uploaded(20, 20, user.token);
    const bobs = await uploaded(20, 20, app.tokens.bob);
    for (const avatarUrl of [`/media/${bobs.id}`, '/media/2000000000', '/media/99999999999']) {
      const refused = await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ avatarUrl });
      expectProblem(refused, 400, 'BAD_USER_INPUT');
      expect(errorFields(refused)).toEqual(['avatarUrl']);
    }
    for (const avatarUrl of ['/media/abc', '/media/1/file', 'javascript:alert(1)', '/etc/passwd']) {
      const refused = await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ avatarUrl });
      expectProblem(refused, 400, 'BAD_USER_INPUT');
      expect(errorFields(refused)).toEqual(['avatarUrl']);
    }
    const signUp = await http().post('/users').send({ name: 'New', email: `new.${kind}.${Date.now()}@example.com`, password: 'a-good-password', avatarUrl: `/media/${own.id}` });
    expectProblem(signUp, 400, 'BAD_USER_INPUT');
    expect(await othersSee(own.id)).toEqual([404, 404, 404]);

    const set = await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ avatarUrl: `/media/${own.id}` });
    expect(set.status, set.text).toBe(200);
    expect(set.body.avatarUrl).toBe(`/media/${own.id}`);
    expect(await othersSee(own.id)).toEqual([200, 200, 200]);
    const inUse = await http().delete(`/media/${own.id}`).set(bearer(user.token));
    expectProblem(inUse, 409, 'CONFLICT');
    expect(inUse.body.detail).toContain(`/users/${user.id}`);
    expect(await othersSee(own.id)).toEqual([200, 200, 200]);
    expect((await http().patch(`/users/${user.id}`).set(bearer(user.token)).send({ avatarUrl: 'https://example.com/me.png' })).status).toBe(200);
    expect(await othersSee(own.id)).toEqual([404, 404, 404]);
    expect((await http().delete(`/media/${own.id}`).set(bearer(user.token))).status).toBe(204);
  });

  it('a body written before the variants exist lists them all in its srcset; one not made yet is a 307 to the original, never cached', async () => {
    const item = await uploaded(300, 150, app.tokens.alice, 'Early');
    // Written at once: whether or not the worker has made any variant yet, the srcset is the same.
    const post = await createPost(app, app.tokens.alice, { bodyFormat: 'markdown', body: `![](/media/${item.id})` });
    expect(post.bodyHtml).toContain(`srcset="/media/${item.id}/file?variant=w64 64w, /media/${item.id}/file?variant=w128 128w, /media/${item.id}/file 300w"`);
    await withVariants(item, 2);
    // A variant whose file is not there (yet): the original stands in.
    await rm(join(mediaDir, 'media', String(item.id), 'w64.webp'));
    const pending = await http().get(`/media/${item.id}/file?variant=w64`);
    expect(pending.status, pending.text).toBe(307);
    expect(pending.headers.location).toBe(`/media/${item.id}/file`);
    expect(pending.headers['cache-control']).toBe('no-store');
    expect((await http().get(`/media/${item.id}/file?variant=w128`)).status).toBe(200);
    // Never made (not narrower than the original): 404; unknown: 400.
    expectProblem(await http().get(`/media/${item.id}/file?variant=w4000`), 404, 'NOT_FOUND');
    expectProblem(await http().get(`/media/${item.id}/file?variant=w65`), 400, 'BAD_USER_INPUT');
    // A private item's pending variant is 404 like the item.
    const hidden = await uploaded(300, 150, app.tokens.alice);
    await withVariants(hidden, 2);
    await rm(join(mediaDir, 'media', String(hidden.id), 'w64.webp'));
    expectProblem(await http().get(`/media/${hidden.id}/file?variant=w64`), 404, 'NOT_FOUND');
    expect((await http().get(`/media/${hidden.id}/file?variant=w64`).set(bearer(app.tokens.alice))).status).toBe(307);
  });

  it('DELETE of an item a body shows is 409 naming the posts the caller may see; once no body shows it, it goes', async () => {
    const item = await uploaded(24, 24);
    const shown = await createPost(app, app.tokens.alice, { bodyFormat: 'markdown', body: `![](/media/${item.id})` });
    const draft = await createPost(app, app.tokens.editor, { status: 'draft', bodyFormat: 'html', body: `<p><img src="/media/${item.id}"></p>` });
    const byAlice = await http().delete(`/media/${item.id}`).set(bearer(app.tokens.alice));
    expectProblem(byAlice, 409, 'CONFLICT');
    expect(byAlice.body.detail).toContain(`/posts/${shown.id}`);
    expect(byAlice.body.detail).not.toContain(`/posts/${draft.id}`);
    const byAdmin = await http().delete(`/media/${item.id}`).set(bearer(app.tokens.admin));
    expectProblem(byAdmin, 409, 'CONFLICT');
    expect(byAdmin.body.detail).toContain(`/posts/${draft.id}`);

    expect((await http().patch(`/posts/${shown.id}`).set(bearer(app.tokens.alice)).send({ body: 'gone' })).status).toBe(200);
    // Deleting the post for good drops its references with it.
    expect((await http().delete(`/posts/${draft.id}`).set(bearer(app.tokens.editor))).status).toBe(204);
    expect((await http().delete(`/posts/${draft.id}`).set(bearer(app.tokens.editor))).status).toBe(204);
    const deleted = await http().delete(`/media/${item.id}`).set(bearer(app.tokens.alice));
    expect(deleted.status, deleted.text).toBe(204);
  });
});
