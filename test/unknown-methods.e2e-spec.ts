import http from 'node:http';
import net from 'node:net';
import request from 'supertest';
import { beforeAll, expect, it } from 'vitest';
import { expectNoLeaks } from './support/problems.js';
import { type ListeningApp, listen } from './support/subscriptions.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * A method a path does not serve is 405 with Allow whatever the request carries: QUERY (which
 * Fastify parses a body for, and refuses without Content-Type), PURGE, a method Node's HTTP parser
 * does not know (FOO), with or without a body, a Content-Type, a body that is not JSON or is over
 * the limit, an If-Match or a bearer token. Sent over a real socket: supertest cannot send FOO.
 */
interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

function send(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Buffer): Promise<RawResponse> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    // One connection each: a refused request line closes its connection.
    const outgoing = http.request({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers, agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    // The server may answer and close before a large body is all written.
    outgoing.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error)));
    outgoing.end(body);
  });
}

/** What the server answers to raw bytes, up to its closing the connection. */
function sendRaw(base: string, bytes: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname, () => socket.end(bytes));
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('close', () => resolve(text));
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? resolve(text) : reject(error)));
  });
}

function expectMethodNotAllowed(response: RawResponse, method: string, path: string, allow: string): void {
  const label = `${method} ${path}`;
  expect(response.status, `${label}: ${response.text}`).toBe(405);
  expect(response.headers.allow, label).toBe(allow);
  expect(response.headers['content-type'], label).toBe('application/problem+json; charset=utf-8');
  expect(JSON.parse(response.text), label).toEqual({
    type: '/problems/method-not-allowed',
    title: 'Method Not Allowed',
    status: 405,
    detail: `${method} is not served on this path; it serves ${allow}`,
    instance: path,
    code: 'METHOD_NOT_ALLOWED',
  });
  expectNoLeaks(response.text);
}

describeEachDatabase('unknown methods: 405 with Allow, whatever the headers', (kind) => {
  const BODY_LIMIT = 4096;
  const app = useApp(kind, { env: { BODY_LIMIT_BYTES: String(BODY_LIMIT) }, signIn: ['alice'] });
  let urls: ListeningApp;

  beforeAll(async () => {
    urls = await listen(app);
  });

  const variants = (): [string, Record<string, string>, string | Buffer | undefined][] => [
    ['no headers', {}, undefined],
    ['a JSON body', { 'content-type': 'application/json' }, '{"title":"x"}'],
    ['a body that is not JSON', { 'content-type': 'application/json' }, '{"title'],
    ['a text body', { 'content-type': 'text/plain' }, 'hello'],
    ['Content-Type but no body', { 'content-type': 'application/json' }, undefined],
    ['a body without Content-Type', {}, 'hello'],
    ['a body over the limit', { 'content-type': 'application/json' }, Buffer.alloc(BODY_LIMIT * 4, 'a')],
    ['an empty If-Match', { 'if-match': '' }, undefined],
    ['a stale If-Match', { 'if-match': '"999"' }, undefined],
    ['a bearer token', { authorization: `Bearer ${app.tokens.alice}` }, undefined],
    ['a broken bearer token', { authorization: 'Bearer nope' }, undefined],
  ];

  const cases: [string, string, string][] = [
    ['QUERY', '/posts/1', 'GET, HEAD, PATCH, DELETE'],
    ['QUERY', '/posts', 'GET, HEAD, POST'],
    ['PURGE', '/posts', 'GET, HEAD, POST'],
    ['PURGE', '/comments/1', 'GET, HEAD, PATCH, DELETE'],
    ['FOO', '/users', 'GET, HEAD, POST'],
    ['FOO', '/posts/1', 'GET, HEAD, PATCH, DELETE'],
    ['PUT', '/posts/1', 'GET, HEAD, PATCH, DELETE'],
    ['POST', '/posts/1', 'GET, HEAD, PATCH, DELETE'],
  ];

  it('QUERY, PURGE, FOO, PUT on a known path: 405 problem+json with Allow, before any body or credential is looked at', async () => {
    for (const [method, path, allow] of cases) {
      for (const [label, headers, body] of variants()) {
        const response = await send(urls.http, method, path, headers, body);
        expect(response.status, `${method} ${path} with ${label}: ${response.text}`).toBe(405);
        expectMethodNotAllowed(response, method, path, allow);
        expect(response.headers.vary, `${method} ${path}`).toMatch(/\bAccept\b/);
        expect(response.headers['x-content-type-options']).toBe('nosniff');
      }
    }
    // Nothing was changed, and the server still answers on new connections.
    expect((await request(app.server).get('/posts/1').expect(200)).body.id).toBe(1);
  });

  it('FOO as raw bytes is 405 with Allow; other requests Node\'s parser refuses keep their answers (400, 431)', async () => {
    const foo = await sendRaw(urls.http, 'FOO /posts HTTP/1.1\r\nHost: x\r\nAccept: application/xml\r\n\r\n');
    expect(foo).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(foo).toMatch(/\r\nallow: GET, HEAD, POST\r\n/i);
    expect(foo).toMatch(/\r\ncontent-type: application\/problem\+xml; charset=utf-8\r\n/i);
    expect(foo).toContain('<status>405</status>');
    const badHeader = await sendRaw(urls.http, 'GET /posts HTTP/1.1\r\nHost: x\r\nnot a header\r\n\r\n');
    expect(badHeader).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    const hugeHeader = await sendRaw(urls.http, `GET /posts HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`);
    expect(hugeHeader).toMatch(/^HTTP\/1\.1 431 /);
  });

  it('the query string is not part of the instance; the format follows Accept like every error', async () => {
    for (const method of ['QUERY', 'FOO']) {
      const json = await send(urls.http, method, '/users?limit=1');
      expectMethodNotAllowed(json, method, '/users', 'GET, HEAD, POST');
      const xml = await send(urls.http, method, '/users?limit=1', { accept: 'application/xml' });
      expect(xml.status).toBe(405);
      expect(xml.headers.allow).toBe('GET, HEAD, POST');
      expect(xml.headers['content-type']).toBe('application/problem+xml; charset=utf-8');
      expect(xml.text).toContain('<status>405</status>');
      const html = await send(urls.http, method, '/users', { accept: 'text/html' });
      expect(html.status).toBe(405);
      expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
    }
  });

  it('an unknown path stays 404 whatever the method, and without Allow', async () => {
    for (const method of ['QUERY', 'PURGE', 'FOO']) {
      for (const [label, headers, body] of variants().slice(0, 4)) {
        const response = await send(urls.http, method, '/nope', headers, body);
        expect(response.status, `${method} /nope with ${label}: ${response.text}`).toBe(404);
        expect(response.headers.allow).toBeUndefined();
        expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        expect(JSON.parse(response.text)).toMatchObject({ status: 404, code: 'NOT_FOUND', instance: '/nope' });
      }
    }
  });
});
