import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaRepository } from '../src/media/media.repository.js';
import { MediaVariantsWorker, VARIANT_LEASE_MS } from '../src/media/media-variants.worker.js';
import { bearer } from './support/auth.js';
import { expectData, graphql } from './support/graphql-client.js';
import { errorFields, expectProblem } from './support/problems.js';
import { createPost, createUser, parseXml } from './support/resources.js';
import { useApp } from './support/fixture.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { pollUntil } from './support/poll.js';

/** A variant the worker may be writing meanwhile, whatever the test does. */
const VARIANT_FILE = /^media\/\d+\/w\d+\.webp$/;

const MEDIA_KEYS = ['_links', 'alt', 'caption', 'createdAt', 'filename', 'focalPoint', 'height', 'id', 'mimeType', 'size', 'updatedAt', 'uploaderId', 'variants', 'width'];

/** A media item's JSON representation, as the tests read it. */
interface MediaBody {
  id: number;
  size: number;
  width: number;
  height: number;
  variants: { name: string; size: number }[];
  [field: string]: unknown;
}

/** A solid image made by sharp, in one of the accepted formats. */
function image(format: 'jpeg' | 'png' | 'gif' | 'webp' | 'avif', width = 400, height = 300): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 60, b: 40 } } })
    .toFormat(format)
    .toBuffer();
}

/** One PNG chunk: length, type, data and the CRC of type and data. */
function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/** A PNG of a few hundred bytes whose header declares width × height pixels (a decompression bomb). */
function pixelBomb(width = 50_000, height = 50_000): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(Buffer.alloc(1024))), pngChunk('IEND', Buffer.alloc(0))]);
}

/** Media (CONTRACT §14): uploads, types from the bytes, limits, stripped metadata, files, visibility, variants. */
describeEachDatabase('media', (kind) => {
  let mediaDir: string | undefined;
  const app = useApp(kind, {
    signIn: ['admin', 'alice', 'bob', 'editor'],
    timeout: 60_000,
    // Made when the app starts (useApp's beforeAll reads the env before any later hook runs).
    get env() {
      mediaDir ??= mkdtempSync(join(tmpdir(), `media-${kind}-`));
      return { RESPONSE_CACHE: 'off', MEDIA_DIR: mediaDir, MEDIA_VARIANT_WIDTHS: '64,128,4000' };
    },
  });
  const http = () => request(app.server);
  const dir = () => mediaDir!;

  afterAll(() => (mediaDir ? rm(mediaDir, { recursive: true, force: true }) : undefined));

  async function upload(bytes: Buffer, name = 'photo.bin', token = app.tokens.alice, fields: Record<string, string> = {}) {
    let call = http().post('/media').set(bearer(token));
    for (const [field, value] of Object.entries(fields)) call = call.field(field, value);
    return call.attach('file', bytes, { filename: name, contentType: 'application/octet-stream' });
  }

  async function uploaded(bytes: Buffer, token = app.tokens.alice): Promise<MediaBody> {
    const response = await upload(bytes, 'image.bin', token);
    expect(response.status, response.text).toBe(201);
    return response.body as MediaBody;
  }

  async function fileBytes(id: number, token?: string, variant?: string): Promise<Buffer> {
    let call = http().get(`/media/${id}/file${variant ? `?variant=${variant}` : ''}`);
    if (token) call = call.set(bearer(token));
    const response = await call.buffer(true).parse((res, callback) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => callback(null, Buffer.concat(chunks)));
    });
    expect(response.status, String(response.body)).toBe(200);
    return response.body as Buffer;
  }

  describe('uploads', () => {
    it.each([
      ['jpeg', 'image/jpeg'],
      ['png', 'image/png'],
      ['gif', 'image/gif'],
      ['webp', 'image/webp'],
      ['avif', 'image/avif'],
    ] as const)('a %s as multipart: 201, Location, its type from its bytes (the name and the part type say nothing)', async (format, mimeType) => {
      const response = await upload(await image(format), 'not-what-it-is.txt', app.tokens.alice, { alt: 'A red square', caption: 'Seen from above' });
      expect(response.status, response.text).toBe(201);
      expect(Object.keys(response.body).sort()).toEqual(MEDIA_KEYS);
      expect(response.headers.location).toBe(`/media/${response.body.id}`);
      expect(response.body).toMatchObject({ mimeType, width: 400, height: 300, alt: 'A red square', caption: 'Seen from above', filename: 'not-what-it-is.txt', focalPoint: null });
      expect(response.body._links).toEqual({ self: { href: `/media/${response.body.id}` }, file: { href: `/media/${response.body.id}/file` }, uploader: { href: expect.stringMatching(/^\/users\/\d+$/) } });
      const served = await fileBytes(response.body.id, app.tokens.alice);
      expect(served.length).toBe(response.body.size);
      expect((await sharp(served).metadata()).format).toBe(format === 'avif' ? 'heif' : format);
    });

    it('a raw image/* body with a Content-Disposition filename: 201', async () => {
      const response = await http()
        .post('/media')
        .set(bearer(app.tokens.alice))
        .set('content-type', 'image/png')
        .set('content-disposition', 'attachment; filename="../../etc/raw shot.png"')
        .send(await image('png', 50, 40));
      expect(response.status, response.text).toBe(201);
      expect(response.body).toMatchObject({ mimeType: 'image/png', width: 50, height: 40, filename: 'raw shot.png', alt: null, caption: null });
    });

    it('a raw body typed image/png that is a JPEG is stored as the JPEG it is', async () => {
      const response = await http().post('/media').set(bearer(app.tokens.alice)).set('content-type', 'image/png').send(await image('jpeg', 20, 20));
      expect(response.status, response.text).toBe(201);
      expect(response.body.mimeType).toBe('image/jpeg');
    });

    it('EXIF and GPS are gone from the served bytes, the orientation applied', async () => {
      const original = await sharp({ create: { width: 60, height: 30, channels: 3, background: '#3366cc' } })
        .jpeg()
        .withMetadata({ orientation: 6 })
        .withExifMerge({ IFD0: { Copyright: 'secret-owner-copyright', ImageDescription: 'secret-description' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1' } })
        .toBuffer();
      const before = await sharp(original).metadata();
      expect(before.exif).toBeDefined();
      expect(before.orientation).toBe(6);
      expect(original.includes('secret-owner-copyright')).toBe(true);
      const item = await uploaded(original);
      // Orientation 6 (rotated 90°): displayed 30 wide and 60 high.
      expect([item.width, item.height]).toEqual([30, 60]);
      const served = await fileBytes(item.id, app.tokens.alice);
      const after = await sharp(served).metadata();
      expect(after.exif).toBeUndefined();
      expect(after.xmp).toBeUndefined();
      expect(after.orientation).toBeUndefined();
      expect(served.includes('secret-owner-copyright')).toBe(false);
      expect(served.includes('secret-description')).toBe(false);
    });

    it.each([
      ['a renamed HTML file', Buffer.from('<!doctype html><html><script>alert(document.cookie)</script></html>'), 'photo.png'],
      ['an SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect width="10" height="10"/></svg>'), 'icon.svg'],
      ['a script', Buffer.from('#!/bin/sh\necho owned\n'), 'run.jpg'],
      ['an empty file', Buffer.alloc(0), 'empty.png'],
    ])('%s is 415, and nothing is kept', async (_name, bytes, filename) => {
      const before = await listFiles(dir());
      const response = await upload(bytes, filename);
      expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const after = await listFiles(dir());
      expect(after.filter((entry) => !before.includes(entry) && !VARIANT_FILE.test(entry))).toEqual([]);
    });

    it('a truncated JPEG is 415', async () => {
      const whole = await sharp({ create: { width: 300, height: 300, channels: 3, background: '#888' } })
        .composite([{ input: await image('png', 100, 100), top: 50, left: 50 }])
        .jpeg()
        .toBuffer();
      const response = await upload(whole.subarray(0, Math.floor(whole.length / 2)), 'cut.jpg');
      expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    it('a PNG declaring 50,000 × 50,000 pixels is 413 before it is decoded', async () => {
      const bomb = pixelBomb();
      expect(bomb.length).toBeLessThan(2000);
      const response = await upload(bomb, 'bomb.png');
      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
      expect(response.body.detail).toContain('MEDIA_MAX_PIXELS');
    });

    it('anonymous callers get 401, read keys 403; a form without a file or with another field is 400', async () => {
      expect((await http().post('/media').attach('file', await image('png', 5, 5), 'a.png')).status).toBe(401);
      const owner = await createUser(app);
      const key = await http().post(`/users/${owner.id}/api-keys`).set(bearer(owner.token)).send({ name: 'reader', scopes: ['read'] });
      expect(key.status, key.text).toBe(201);
      const readKey = key.body.key as string;
      expectProblem(await http().post('/media').set(bearer(readKey)).attach('file', await image('png', 5, 5), 'a.png'), 403, 'INSUFFICIENT_SCOPE');
      const noFile = await http().post('/media').set(bearer(app.tokens.alice)).field('alt', 'x');
      expectProblem(noFile, 400, 'BAD_USER_INPUT');
      expect(errorFields(noFile)).toEqual(['file']);
      const otherField = await http().post('/media').set(bearer(app.tokens.alice)).field('path', '/etc/passwd').attach('file', await image('png', 5, 5), 'a.png');
      expectProblem(otherField, 400, 'BAD_USER_INPUT');
      expect(errorFields(otherField)).toEqual(['path']);
      const wrongPart = await http().post('/media').set(bearer(app.tokens.alice)).attach('upload', await image('png', 5, 5), 'a.png');
      expectProblem(wrongPart, 400, 'BAD_USER_INPUT');
    });

    it('a JSON body is 415; a multipart body anywhere else is 415', async () => {
      expectProblem(await http().post('/media').set(bearer(app.tokens.alice)).send({ file: 'x' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectProblem(await http().post('/posts').set(bearer(app.tokens.alice)).field('title', 'x').field('body', 'y'), 415, 'UNSUPPORTED_MEDIA_TYPE');
      expectProblem(await http().post('/posts').set(bearer(app.tokens.alice)).set('content-type', 'image/png').send(await image('png', 5, 5)), 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('the resource', () => {
    it('GET /media/{id} in JSON, HAL and XML; PATCH alt, caption, focal point; If-Match', async () => {
      const item = await uploaded(await image('png', 300, 200));
      const json = await http().get(`/media/${item.id}`).set(bearer(app.tokens.alice));
      expect(json.status).toBe(200);
      expect(json.body).toMatchObject({ id: item.id, mimeType: 'image/png' });
      const hal = await http().get(`/media/${item.id}`).set(bearer(app.tokens.alice)).set('accept', 'application/hal+json');
      expect(hal.status).toBe(200);
      expect(hal.body._links.file.href).toBe(`/media/${item.id}/file`);
      const xml = await http().get(`/media/${item.id}`).set(bearer(app.tokens.alice)).set('accept', 'application/xml');
      expect(xml.status).toBe(200);
      expect(parseXml(xml.text).name).toBe('media');
      const html = await http().get(`/media/${item.id}`).set(bearer(app.tokens.alice)).set('accept', 'text/html');
      expect(html.status).toBe(200);

      const patched = await http().patch(`/media/${item.id}`).set(bearer(app.tokens.alice)).set('if-match', json.headers.etag).send({ alt: 'New alt', focalPoint: { x: 0.25, y: 0.75 } });
      expect(patched.status, patched.text).toBe(200);
      expect(patched.body).toMatchObject({ alt: 'New alt', caption: null, focalPoint: { x: 0.25, y: 0.75 } });
      expect((await http().get(`/media/${item.id}`).set(bearer(app.tokens.alice))).body.focalPoint).toEqual({ x: 0.25, y: 0.75 });
      expectProblem(await http().patch(`/media/${item.id}`).set(bearer(app.tokens.alice)).set('if-match', json.headers.etag).send({ alt: 'stale' }), 412, 'PRECONDITION_FAILED');
      const cleared = await http().patch(`/media/${item.id}`).set(bearer(app.tokens.editor)).send({ focalPoint: null, caption: 'By an editor' });
      expect(cleared.status, cleared.text).toBe(200);
      expect(cleared.body).toMatchObject({ alt: 'New alt', caption: 'By an editor', focalPoint: null });
    });

    it.each([
      [{ focalPoint: { x: 1.5, y: 0 } }, 'focalPoint'],
      [{ focalPoint: { x: 0.5 } }, 'focalPoint'],
      [{ focalPoint: 'middle' }, 'focalPoint'],
      [{ alt: 'x'.repeat(501) }, 'alt'],
      [{ caption: 7 }, 'caption'],
      [{}, undefined],
      [{ filename: '/etc/passwd' }, 'filename'],
    ])('PATCH %j is 400', async (body, field) => {
      const item = await uploaded(await image('png', 10, 10));
      const response = await http().patch(`/media/${item.id}`).set(bearer(app.tokens.alice)).send(body);
      expectProblem(response, 400, 'BAD_USER_INPUT');
      if (field) expect(errorFields(response).some((name) => name.startsWith(field))).toBe(true);
    });

    it('GET /media lists what the caller may see, newest first, paged', async () => {
      const other = await createUser(app);
      const first = await uploaded(await image('png', 10, 10), other.token);
      const second = await uploaded(await image('png', 11, 11), other.token);
      const own = await http().get('/media?limit=1').set(bearer(other.token));
      expect(own.status).toBe(200);
      expect(own.body.map((item: { id: number }) => item.id)).toEqual([second.id]);
      const next = /<([^>]+)>; rel="next"/.exec(own.headers.link)?.[1];
      expect(next).toBeDefined();
      expect((await http().get(next!).set(bearer(other.token))).body.map((item: { id: number }) => item.id)).toEqual([first.id]);
      const bobs = await http().get('/media?limit=100').set(bearer(app.tokens.bob));
      expect(bobs.body.map((item: { id: number }) => item.id)).not.toContain(first.id);
      const admins = await http().get('/media?limit=2').set(bearer(app.tokens.admin));
      expect(admins.body.map((item: { id: number }) => item.id)).toEqual([second.id, first.id]);
    });
  });

  describe('visibility', () => {
    const query = 'query($id: Int!) { media(id: $id) { id } }';

    async function seenBy(id: number, token?: string) {
      const auth = token ? bearer(token) : {};
      const [item, file, list, gql] = await Promise.all([
        http().get(`/media/${id}`).set(auth),
        http().get(`/media/${id}/file`).set(auth),
        http().get('/media?limit=100').set(auth),
        graphql(app, query, { id }, { token }),
      ]);
      return {
        item: item.status,
        file: file.status,
        listed: (list.body as { id: number }[]).some((entry) => entry.id === id),
        graphql: expectData(gql).media !== null,
      };
    }

    it('an image used only by a draft: its uploader, editors and admins see it; everyone else gets 404 on every door, until the post is published', async () => {
      const item = await uploaded(await image('png', 30, 30));
      const draft = await createPost(app, app.tokens.alice, { status: 'draft', coverImageId: item.id });
      const hidden = { item: 404, file: 404, listed: false, graphql: false };
      const shown = { item: 200, file: 200, listed: true, graphql: true };
      expect(await seenBy(item.id)).toEqual(hidden);
      expect(await seenBy(item.id, app.tokens.bob)).toEqual(hidden);
      expect(await seenBy(item.id, app.tokens.alice)).toEqual(shown);
      expect(await seenBy(item.id, app.tokens.editor)).toEqual(shown);
      expect(await seenBy(item.id, app.tokens.admin)).toEqual(shown);
      expect((await http().get(`/media/${item.id}/file`).set(bearer(app.tokens.alice))).headers['cache-control']).toBe('private, no-store');
      // Bob may not change or delete what he does not see.
      expect((await http().patch(`/media/${item.id}`).set(bearer(app.tokens.bob)).send({ alt: 'x' })).status).toBe(404);
      expect((await http().delete(`/media/${item.id}`).set(bearer(app.tokens.bob))).status).toBe(404);

      const published = await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ status: 'published' });
      expect(published.status, published.text).toBe(200);
      expect(await seenBy(item.id)).toEqual(shown);
      expect(await seenBy(item.id, app.tokens.bob)).toEqual(shown);
      expect((await http().get(`/media/${item.id}/file`)).headers['cache-control']).toBe('public, max-age=300');
      // Seen is not changed: Bob sees it, but may not change it.
      expectProblem(await http().patch(`/media/${item.id}`).set(bearer(app.tokens.bob)).send({ alt: 'x' }), 403, 'FORBIDDEN');

      const cover = await graphql(app, 'query($id: Int!) { post(id: $id) { coverImageId coverImage { id mimeType variants { name } } } }', { id: draft.id });
      expect(expectData(cover).post).toEqual({ coverImageId: item.id, coverImage: { id: item.id, mimeType: 'image/png', variants: expect.any(Array) } });

      expect((await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.alice)).send({ status: 'draft' })).status).toBe(200);
      expect(await seenBy(item.id)).toEqual(hidden);
    });

    it('coverImageId naming an item that does not exist, or that the writer may not see, is 400 naming it', async () => {
      const bobs = await uploaded(await image('png', 12, 12), app.tokens.bob);
      for (const coverImageId of [bobs.id, 2_000_000_000]) {
        const response = await http().post('/posts').set(bearer(app.tokens.alice)).send({ title: 'Cover', body: 'text', coverImageId });
        expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(errorFields(response)).toEqual(['coverImageId']);
      }
      const post = await createPost(app, app.tokens.alice);
      const patch = await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ coverImageId: bobs.id });
      expectProblem(patch, 400, 'BAD_USER_INPUT');
      expect(errorFields(patch)).toEqual(['coverImageId']);
      // An editor sees every item, and may use it.
      expect((await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.editor)).send({ coverImageId: bobs.id })).status).toBe(200);
      expect((await http().patch(`/posts/${post.id}`).set(bearer(app.tokens.alice)).send({ coverImageId: null })).body.coverImageId).toBeNull();
    });

    it('DELETE while a post uses it is 409 naming the posts the caller may see; once free, it goes with its files', async () => {
      const item = await uploaded(await image('png', 300, 300));
      const publicPost = await createPost(app, app.tokens.alice, { coverImageId: item.id });
      const draft = await createPost(app, app.tokens.editor, { status: 'draft', coverImageId: item.id });
      const byAlice = await http().delete(`/media/${item.id}`).set(bearer(app.tokens.alice));
      expectProblem(byAlice, 409, 'CONFLICT');
      expect(byAlice.body.detail).toContain(`/posts/${publicPost.id}`);
      expect(byAlice.body.detail).not.toContain(`/posts/${draft.id}`);
      const byAdmin = await http().delete(`/media/${item.id}`).set(bearer(app.tokens.admin));
      expectProblem(byAdmin, 409, 'CONFLICT');
      expect(byAdmin.body.detail).toContain(`/posts/${draft.id}`);
      const gql = await graphql(app, 'mutation($id: Int!) { deleteMedia(id: $id) }', { id: item.id }, { token: app.tokens.alice });
      expect(gql.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');

      expect((await http().patch(`/posts/${publicPost.id}`).set(bearer(app.tokens.alice)).send({ coverImageId: null })).status).toBe(200);
      expect((await http().patch(`/posts/${draft.id}`).set(bearer(app.tokens.editor)).send({ coverImageId: null })).status).toBe(200);
      await pollUntil(() => http().get(`/media/${item.id}`).set(bearer(app.tokens.alice)), (response) => response.body.variants?.length === 2, 'the variants');
      const deleted = await http().delete(`/media/${item.id}`).set(bearer(app.tokens.alice));
      expect(deleted.status, deleted.text).toBe(204);
      expect((await http().get(`/media/${item.id}`).set(bearer(app.tokens.alice))).status).toBe(404);
      expect((await listFiles(dir())).filter((entry) => entry.startsWith(`media/${item.id}/`))).toEqual([]);
    });
  });

  describe('events', () => {
    it('MEDIA_CREATED, MEDIA_UPDATED and MEDIA_DELETED in the feed, for those who see the item', async () => {
      const item = await uploaded(await image('png', 16, 16));
      expect((await http().patch(`/media/${item.id}`).set(bearer(app.tokens.alice)).send({ alt: 'Evented' })).status).toBe(200);
      expect((await http().delete(`/media/${item.id}`).set(bearer(app.tokens.alice))).status).toBe(204);
      const types = 'MEDIA_CREATED,MEDIA_UPDATED,MEDIA_DELETED';
      const about = (response: request.Response) =>
        (response.body as { type: string; mediaId: number | null }[]).filter((entry) => entry.mediaId === item.id).map((entry) => entry.type);
      const own = await http().get(`/events?types=${types}&limit=100`).set(bearer(app.tokens.alice));
      expect(own.status, own.text).toBe(200);
      expect(about(own)).toEqual(['MEDIA_CREATED', 'MEDIA_UPDATED', 'MEDIA_DELETED']);
      // The item as each write left it (a deletion: its ids only).
      const resources = (own.body as { mediaId: number | null; resource?: { id: number; alt: string | null } | null }[]).filter((entry) => entry.mediaId === item.id).map((entry) => entry.resource ?? null);
      expect(resources).toEqual([expect.objectContaining({ id: item.id, alt: item.alt ?? null }), expect.objectContaining({ id: item.id, alt: 'Evented' }), null]);
      expect(about(await http().get(`/events?types=${types}&limit=100`).set(bearer(app.tokens.editor)))).toEqual(['MEDIA_CREATED', 'MEDIA_UPDATED', 'MEDIA_DELETED']);
      expect(about(await http().get(`/events?types=${types}&limit=100`).set(bearer(app.tokens.bob)))).toEqual([]);
      expect(about(await http().get(`/events?types=${types}&limit=100`))).toEqual([]);
    });
  });

  describe('user deletion', () => {
    it('deletes the media the user uploaded that no other user’s post uses, rows and files; what another user’s post uses passes to its author', async () => {
      const leaving = await createUser(app);
      const ownCover = await uploaded(await image('png', 20, 20), leaving.token);
      const unused = await uploaded(await image('png', 21, 21), leaving.token);
      const shared = await uploaded(await image('png', 22, 22), leaving.token);
      await createPost(app, leaving.token, { coverImageId: ownCover.id });
      // Public once their published post uses it, so BOB may take it as his cover too.
      await createPost(app, leaving.token, { coverImageId: shared.id });
      const bobs = await createPost(app, app.tokens.bob, { coverImageId: shared.id, status: 'draft' });
      // One more, public through their post, that ALICE shows in the body of hers (no cover).
      const shown = await uploaded(await image('png', 23, 23), leaving.token);
      await createPost(app, leaving.token, { coverImageId: shown.id });
      const alices = await createPost(app, app.tokens.alice, { bodyFormat: 'markdown', body: `![a picture](/media/${shown.id})` });
      const before = await listFiles(dir());
      for (const item of [ownCover, unused, shared, shown]) expect(before, `the file of media ${item.id}`).toContain(`media/${item.id}/original`);

      const deleted = await http().delete(`/users/${leaving.id}`).set(bearer(app.tokens.admin));
      expect(deleted.status, deleted.text).toBe(204);

      for (const item of [ownCover, unused]) {
        expectProblem(await http().get(`/media/${item.id}`).set(bearer(app.tokens.admin)), 404, 'NOT_FOUND');
        expect((await listFiles(dir())).filter((entry) => entry.startsWith(`media/${item.id}/`)), `the files of media ${item.id}`).toEqual([]);
      }
      const kept = await http().get(`/media/${shared.id}`).set(bearer(app.tokens.bob));
      expect(kept.status, kept.text).toBe(200);
      expect(kept.body).toMatchObject({ id: shared.id, uploaderId: bobs.authorId });
      expect((await fileBytes(shared.id, app.tokens.bob)).length).toBe(shared.size);
      const post = await http().get(`/posts/${bobs.id}`).set(bearer(app.tokens.bob)).expect(200);
      expect(post.body.coverImageId).toBe(shared.id);
      // BOB's draft is not public: the item is his (and the editors') now, nobody else's.
      expectProblem(await http().get(`/media/${shared.id}`).set(bearer(app.tokens.alice)), 404, 'NOT_FOUND');
      expectProblem(await http().get(`/media/${shared.id}`), 404, 'NOT_FOUND');
      // The one ALICE's body shows is hers now, and still served.
      const inBody = await http().get(`/media/${shown.id}`).set(bearer(app.tokens.alice));
      expect(inBody.status, inBody.text).toBe(200);
      expect(inBody.body).toMatchObject({ id: shown.id, uploaderId: alices.authorId });
      expect((await fileBytes(shown.id, app.tokens.alice)).length).toBe(shown.size);
      // Its MEDIA_DELETED events reach the editors.
      const feed = await http().get('/events?types=MEDIA_DELETED&limit=100').set(bearer(app.tokens.editor)).expect(200);
      const gone = (feed.body as { mediaId: number | null }[]).map((entry) => entry.mediaId);
      expect(gone).toEqual(expect.arrayContaining([ownCover.id, unused.id]));
      expect(gone).not.toContain(shared.id);
      expect(gone).not.toContain(shown.id);
    });
  });

  describe('variants', () => {
    it('one WebP per MEDIA_VARIANT_WIDTHS width narrower than the original, listed as they appear, served without metadata', async () => {
      const item = await uploaded(await image('jpeg', 400, 200));
      expect(item.variants).toEqual([]);
      const done = await pollUntil(() => http().get(`/media/${item.id}`).set(bearer(app.tokens.alice)), (response) => response.body.variants?.length === 2, 'the variants');
      expect(done.body.variants).toEqual([
        { name: 'w64', width: 64, height: 32, mimeType: 'image/webp', size: expect.any(Number), href: `/media/${item.id}/file?variant=w64` },
        { name: 'w128', width: 128, height: 64, mimeType: 'image/webp', size: expect.any(Number), href: `/media/${item.id}/file?variant=w128` },
      ]);
      const served = await fileBytes(item.id, app.tokens.alice, 'w128');
      expect(served.length).toBe(done.body.variants[1].size);
      const metadata = await sharp(served).metadata();
      expect([metadata.format, metadata.width, metadata.exif]).toEqual(['webp', 128, undefined]);
      const xml = await http().get(`/media/${item.id}`).set(bearer(app.tokens.alice)).set('accept', 'application/xml');
      expect(xml.text).toContain('<variants><variant><name>w64</name>');
    });
  });

  describe('files', () => {
    let item: MediaBody;
    let bytes: Buffer;
    let publicPost: number;

    beforeAll(async () => {
      item = await uploaded(await image('png', 200, 100));
      bytes = await fileBytes(item.id, app.tokens.alice);
      publicPost = (await createPost(app, app.tokens.alice, { coverImageId: item.id })).id;
    });

    it('GET: the bytes with ETag, Content-Length, Accept-Ranges, nosniff, a CSP that loads nothing and a public max-age', async () => {
      const response = await http().get(`/media/${item.id}/file`).buffer(true);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('image/png');
      expect(response.headers['content-length']).toBe(String(bytes.length));
      expect(response.headers['accept-ranges']).toBe('bytes');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toMatch(/^default-src 'none'/);
      expect(response.headers['cache-control']).toBe('public, max-age=300');
      expect(response.headers.etag).toMatch(/^"[^"]+"$/);
      expect(publicPost).toBeGreaterThan(0);
    });

    it('HEAD: the headers without the body; If-None-Match: 304', async () => {
      const head = await http().head(`/media/${item.id}/file`);
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(String(bytes.length));
      expect(head.text ?? '').toBe('');
      const etag = head.headers.etag;
      const notModified = await http().get(`/media/${item.id}/file`).set('if-none-match', etag);
      expect(notModified.status).toBe(304);
      expect((await http().get(`/media/${item.id}/file`).set('if-none-match', '"other"')).status).toBe(200);
    });

    it('Range: 206 with Content-Range, suffix ranges, 416 past the end, several ranges answered whole', async () => {
      const range = await http().get(`/media/${item.id}/file`).set('range', 'bytes=0-9').buffer(true).parse(binary);
      expect(range.status).toBe(206);
      expect(range.headers['content-range']).toBe(`bytes 0-9/${bytes.length}`);
      expect(range.headers['content-length']).toBe('10');
      expect(Buffer.compare(range.body as Buffer, bytes.subarray(0, 10))).toBe(0);
      const suffix = await http().get(`/media/${item.id}/file`).set('range', 'bytes=-5').buffer(true).parse(binary);
      expect(suffix.status).toBe(206);
      expect(Buffer.compare(suffix.body as Buffer, bytes.subarray(bytes.length - 5))).toBe(0);
      const past = await http().get(`/media/${item.id}/file`).set('range', `bytes=${bytes.length}-`);
      expect(past.status).toBe(416);
      expect(past.headers['content-range']).toBe(`bytes */${bytes.length}`);
      expect((await http().get(`/media/${item.id}/file`).set('range', 'bytes=0-1,4-5')).status).toBe(200);
    });

    it('an unknown variant is 400; a variant not made (yet) 404', async () => {
      expectProblem(await http().get(`/media/${item.id}/file?variant=huge`), 400, 'BAD_USER_INPUT');
      expectProblem(await http().get(`/media/${item.id}/file?variant=w999`), 400, 'BAD_USER_INPUT');
      expectProblem(await http().get(`/media/${item.id}/file?variant=../original`), 400, 'BAD_USER_INPUT');
      // 4000 is wider than the original: never made.
      expectProblem(await http().get(`/media/${item.id}/file?variant=w4000`), 404, 'NOT_FOUND');
    });
  });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- superagent's parser type
function binary(res: any, callback: (error: Error | null, body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (chunk: Buffer) => chunks.push(chunk));
  res.on('end', () => callback(null, Buffer.concat(chunks)));
}

/** Every file under a directory, as paths relative to it. */
async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1));
}

/**
 * Two instances on one PostgreSQL database and one MEDIA_DIR (as two instances share PostgreSQL
 * and S3): each variant is made once whichever instance claims its job; a restart mid-queue and a
 * claim left by a dead instance are finished; the byte limit and the upload rate limit; a failed
 * write leaves no file. On SQLite (one instance per file: several instances need PostgreSQL) the
 * same runs on one instance whose worker claims MEDIA_CONCURRENCY jobs at once, and the restart
 * is a real one: two applications in one process on one SQLite file would block each other,
 * since better-sqlite3 waits for the other's write lock synchronously, on the thread that would
 * release it.
 */
describeEachDatabase('media across instances', (kind) => {
  const pair = kind === 'postgres';
  let mediaDir: string;
  let database: TestDatabase;
  let first: TestApp;
  let second: TestApp;
  let token: string;
  const env = () => ({ RESPONSE_CACHE: 'off', MEDIA_DIR: mediaDir, MEDIA_VARIANT_WIDTHS: '32,64,128', MEDIA_MAX_BYTES: '100000', RATE_LIMIT_UPLOADS_MAX: '25', MEDIA_CONCURRENCY: '2' });

  beforeAll(async () => {
    mediaDir = await mkdtemp(join(tmpdir(), `media-pair-${kind}-`));
    database = await createTestDatabase(kind, { file: true });
    first = await startTestApp(kind, { database, env: env() });
    second = pair ? await startTestApp(kind, { database, env: env() }) : first;
    token = (await createUser(first)).token;
  }, 90_000);
  afterAll(async () => {
    if (pair) await second?.close();
    await first?.close();
    await database?.drop();
    await rm(mediaDir, { recursive: true, force: true });
  });

  async function put(app: TestApp, bytes: Buffer, as = token) {
    return request(app.server).post('/media').set(bearer(as)).set('content-type', 'application/octet-stream').attach('file', bytes, 'x.png');
  }

  const variantsOf = async (app: TestApp, id: number) => ((await request(app.server).get(`/media/${id}`).set(bearer(token))).body.variants ?? []) as { name: string }[];
  const workers = () => [...new Set([first, second])].map((app) => app.app.get(MediaVariantsWorker));

  it('variants appear, each made exactly once across both instances', async () => {
    const madeBefore = workers().reduce((sum, worker) => sum + worker.made, 0);
    const ids: number[] = [];
    for (let index = 0; index < 6; index++) {
      const response = await put(index % 2 === 0 ? first : second, await image('png', 100 + index, 50));
      expect(response.status, response.text).toBe(201);
      ids.push(response.body.id as number);
    }
    for (const id of ids) await pollUntil(() => variantsOf(second, id), (variants) => variants.length === 2, `the variants of ${id}`);
    await Promise.all(workers().map((worker) => worker.idle()));
    // 32 and 64 for each (all narrower than 128): 12 made in all, by one instance or the other.
    expect(workers().reduce((sum, worker) => sum + worker.made, 0) - madeBefore).toBe(12);
    const dataSource = first.app.get(DataSource);
    const [row] = await dataSource.query(`SELECT COUNT(*) AS count FROM media_variants WHERE media_id IN (${ids.join(', ')})`);
    expect(Number(row.count)).toBe(12);
    const [jobs] = await dataSource.query(`SELECT COUNT(*) AS count FROM media_jobs WHERE media_id IN (${ids.join(', ')})`);
    expect(Number(jobs.count)).toBe(0);
  });

  it('a claim left by an instance that died is taken again once its lease is over', async () => {
    const response = await put(first, await image('png', 80, 80));
    const id = response.body.id as number;
    await pollUntil(() => variantsOf(first, id), (variants) => variants.length === 2, 'the variants');
    const dataSource = first.app.get(DataSource);
    const claimedLongAgo = new Date(Date.now() - VARIANT_LEASE_MS - 60_000);
    await dataSource.query(`DELETE FROM media_variants WHERE media_id = ${id}`);
    const at = kind === 'postgres' ? claimedLongAgo : claimedLongAgo.toISOString().replace('T', ' ').replace('Z', '');
    await dataSource.query(`INSERT INTO media_jobs (media_id, attempts, claimed_at, created_at) VALUES (${id}, 1, ${kind === 'postgres' ? '$1, $2' : '?, ?'})`, [at, at]);
    for (const worker of workers()) worker.wake();
    await pollUntil(() => variantsOf(second, id), (variants) => variants.length === 2, 'the variants again');
  });

  it('a restart mid-queue finishes the work', async () => {
    if (!pair) await first.close();
    const third = await startTestApp(kind, { database, env: { ...env(), MEDIA_CONCURRENCY: '1' } });
    const ids: number[] = [];
    try {
      for (let index = 0; index < 3; index++) ids.push((await put(third, await image('png', 90, 90 + index))).body.id as number);
    } finally {
      await third.close();
    }
    if (!pair) second = first = await startTestApp(kind, { database, env: env() });
    for (const id of ids) await pollUntil(() => variantsOf(first, id), (variants) => variants.length === 2, `the variants of ${id}`);
  });

  it('concurrent uploads all succeed while at most MEDIA_CONCURRENCY are decoded at once', async () => {
    // One instance: two in one process on one SQLite file would wait for each other's locks synchronously.
    const responses = await Promise.all(Array.from({ length: 6 }, async (_, index) => put(first, await image('jpeg', 50 + index, 40))));
    expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 201, 201, 201]);
    expect(new Set(responses.map((response) => response.body.id as number)).size).toBe(6);
  });

  it('past MEDIA_MAX_BYTES: 413, as multipart and as a raw body, and nothing is kept', async () => {
    const noise = await sharp(randomBytes(200 * 200 * 3), { raw: { width: 200, height: 200, channels: 3 } }).png().toBuffer();
    expect(noise.length).toBeGreaterThan(100_000);
    const before = await listFiles(mediaDir);
    expectProblem(await put(first, noise), 413, 'PAYLOAD_TOO_LARGE');
    const raw = await request(first.server).post('/media').set(bearer(token)).set('content-type', 'image/png').send(noise);
    expectProblem(raw, 413, 'PAYLOAD_TOO_LARGE');
    await Promise.all(workers().map((worker) => worker.idle()));
    expect((await listFiles(mediaDir)).filter((entry) => !before.includes(entry) && !VARIANT_FILE.test(entry))).toEqual([]);
  });

  it('a write that fails after the file is stored leaves no file and no row', async () => {
    const repository = first.app.get(MediaRepository);
    const enqueue = repository.enqueueVariants.bind(repository);
    repository.enqueueVariants = () => Promise.reject(new Error('the database went away'));
    const before = await listFiles(mediaDir);
    const dataSource = first.app.get(DataSource);
    const [{ count: rowsBefore }] = await dataSource.query('SELECT COUNT(*) AS count FROM media');
    try {
      expect((await put(first, await image('png', 40, 40))).status).toBe(500);
    } finally {
      repository.enqueueVariants = enqueue;
    }
    await Promise.all(workers().map((worker) => worker.idle()));
    expect((await listFiles(mediaDir)).filter((entry) => !before.includes(entry) && !VARIANT_FILE.test(entry))).toEqual([]);
    const [{ count: rowsAfter }] = await dataSource.query('SELECT COUNT(*) AS count FROM media');
    expect(Number(rowsAfter)).toBe(Number(rowsBefore));
  });

  it('the sweep deletes the files no item owns once they are old: a dead upload\'s, those a deletion left behind, half-written ones; an item\'s own stay', async () => {
    const uploader = await createUser(first);
    const theirs = (await put(first, await image('png', 30, 30), uploader.token)).body.id as number;
    const kept = (await put(first, await image('png', 30, 30))).body.id as number;
    await Promise.all(workers().map((worker) => worker.idle()));
    const admin = (await request(first.server).post('/tokens').send({ email: 'admin@example.com', password: 'admin-password' })).body.accessToken as string;
    const gone = await request(first.server).delete(`/users/${uploader.id}`).set(bearer(admin)).send({});
    expect(gone.status, gone.text).toBe(204);
    // Deleting the uploader deleted the file at once; one left behind (a crash after the commit) is the sweep's.
    expect((await listFiles(mediaDir)).filter((entry) => entry.startsWith(`media/${theirs}/`))).toEqual([]);
    await mkdir(join(mediaDir, 'media', String(theirs)), { recursive: true });
    await writeFile(join(mediaDir, 'media', String(theirs), 'original'), 'left behind');
    await mkdir(join(mediaDir, 'tmp'), { recursive: true });
    await writeFile(join(mediaDir, 'tmp', 'dead-upload'), 'half an upload');
    // A variant write that died half-way, in the folder of an item that stays.
    const partial = `media/${kept}/w320.webp.0b7d3c1e-5f2a-4c8e-9a41-2d6f8e3b9c70.part`;
    await writeFile(join(mediaDir, partial), 'half a variant');
    const files = await listFiles(mediaDir);
    expect(files).toEqual(expect.arrayContaining(['tmp/dead-upload', `media/${theirs}/original`, `media/${kept}/original`]));
    const worker = first.app.get(MediaVariantsWorker);
    // Young files are left: an upload or a deletion may still be under way.
    expect(await worker.sweep(new Date())).toBe(0);
    expect(await worker.sweep(new Date(Date.now() + 2 * 3_600_000))).toBeGreaterThanOrEqual(2);
    const after = await listFiles(mediaDir);
    expect(after).not.toContain('tmp/dead-upload');
    expect(after).not.toContain(partial);
    expect(after.filter((entry) => entry.startsWith(`media/${theirs}/`))).toEqual([]);
    expect(after).toContain(`media/${kept}/original`);
  });

  it('uploads past RATE_LIMIT_UPLOADS_MAX per user are 429, before a byte is stored; another user still uploads', async () => {
    const user = await createUser(first);
    const small = await image('png', 8, 8);
    // Counted per instance without Redis (through Redis, across them).
    for (let index = 0; index < 25; index++) expect((await put(first, small, user.token)).status).toBe(201);
    const before = await listFiles(mediaDir);
    const refused = await put(first, small, user.token);
    expectProblem(refused, 429, 'RATE_LIMITED');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await listFiles(mediaDir)).filter((entry) => !before.includes(entry) && !VARIANT_FILE.test(entry))).toEqual([]);
    expect((await put(first, small)).status).toBe(201);
  });
});
