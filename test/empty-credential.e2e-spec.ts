import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectError, graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { rawStream, type RawStream } from './support/sse.js';
import { listen, type ListeningApp, wsClient, type WsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * CONTRACT §18: an empty `Authorization` header (or `Bearer` with nothing, or only spaces, after
 * it) is 401 with problem+json and `WWW-Authenticate: Bearer`, not an anonymous request: a client
 * that meant to send a credential and lost it (an unset variable) is told so. On every door:
 * REST (public routes too), GraphQL over HTTP, the event stream, and graphql-ws's connection_init.
 */
const EMPTY = ['', 'Bearer', 'Bearer ', 'Bearer    ', 'bearer'];

describeEachDatabase('an empty credential is 401, not anonymous', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  const sockets: WsClient[] = [];
  const streams: RawStream[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind);
    urls = await listen(app);
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    await Promise.all(sockets.map((socket) => socket.dispose()));
    await app?.close();
  });

  it('REST: an empty Authorization on public routes (GET, HEAD, sign-up) is 401 UNAUTHENTICATED with WWW-Authenticate', async () => {
    for (const value of EMPTY) {
      for (const url of ['/posts', '/posts/1', '/health']) {
        const response = await request(app.server).get(url).set('Authorization', value);
        expectProblem(response, 401, 'UNAUTHENTICATED');
      }
      const head = await request(app.server).head('/posts').set('Authorization', value);
      expect(head.status, JSON.stringify(value)).toBe(401);
      expect(head.headers['www-authenticate']).toMatch(/^Bearer/);
      const signUp = await request(app.server).post('/users').set('Authorization', value).send({ name: 'Empty', email: 'empty@example.com', password: 'empty-password' });
      expectProblem(signUp, 401, 'UNAUTHENTICATED');
    }
    // No header at all is still anonymous.
    expect((await request(app.server).get('/posts')).status).toBe(200);
  });

  it('GraphQL over HTTP: an empty Authorization is 401 UNAUTHENTICATED, not a query answered anonymously', async () => {
    for (const value of EMPTY) {
      const result = await graphql(app, '{ posts(first: 1) { totalCount } }', undefined, { headers: { Authorization: value } });
      expect(result.status, JSON.stringify(value)).toBe(401);
      expectError(result, 'UNAUTHENTICATED');
      expect(result.response.headers['www-authenticate']).toMatch(/^Bearer/);
    }
    expect((await graphql(app, '{ posts(first: 1) { totalCount } }')).status).toBe(200);
  });

  it('the event stream: an empty Authorization is 401, not an anonymous subscription', async () => {
    for (const value of ['', 'Bearer']) {
      const stream = await rawStream(urls.http, { query: 'subscription { postCreated { id } }' }, { authorization: value });
      streams.push(stream);
      expect(stream.response.status, JSON.stringify(value)).toBe(401);
      expect(stream.response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    }
  });

  it('graphql-ws: an empty authorization in connection_init is refused (4403), not an anonymous connection', async () => {
    for (const value of ['', 'Bearer', 'Bearer   ']) {
      const socket = wsClient(urls.ws, { authorization: value });
      sockets.push(socket);
      // Whichever comes first: an acknowledged connection fails at once, rather than by a timeout.
      const outcome = await Promise.race([socket.closed.then(({ code }) => code), socket.connected.then(() => 'connected anonymously')]);
      expect(outcome, JSON.stringify(value)).toBe(4403);
    }
    const anonymous = wsClient(urls.ws);
    sockets.push(anonymous);
    await anonymous.connected;
  });
});
