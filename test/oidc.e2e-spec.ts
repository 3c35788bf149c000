import { createHmac, createPrivateKey, randomBytes, sign } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, type JWK, SignJWT } from 'jose';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EventPublisher } from '../src/events/event-publisher.js';
import { UsersService } from '../src/users/users.service.js';
import { ADMIN, ALICE, bearer, tokenFor } from './support/auth.js';
import { expectData, expectError, graphql } from './support/graphql-client.js';
import { expectProblem } from './support/problems.js';
import { rawStream } from './support/sse.js';
import { type ListeningApp, LiveSubscription, listen, sleep, until, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * Single sign-on (CONTRACT §3, credential kind 3): tokens of an OpenID Connect provider, whose
 * keys a local JWKS server (node:http) publishes, signed here with jose.
 */

const ISSUER = 'https://id.test/realms/blog';
const AUDIENCE = 'blog-api';
const COOLDOWN_MS = 1000;

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
interface SigningKey {
  kid: string;
  alg: 'RS256' | 'ES256';
  pair: KeyPair;
  jwk: JWK;
}

async function signingKey(kid: string, alg: 'RS256' | 'ES256'): Promise<SigningKey> {
  const pair = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, pair, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg, use: 'sig' } };
}

/** The provider's key endpoint: serves `keys`, counts requests, and can be made to fail. */
class JwksServer {
  keys: JWK[] = [];
  requests = 0;
  failing = false;
  private readonly server: Server = createServer((req, res) => {
    this.requests += 1;
    if (this.failing || req.url !== '/realms/blog/protocol/openid-connect/certs') {
      res.writeHead(this.failing ? 500 : 404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: this.keys }));
  });

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/realms/blog/protocol/openid-connect/certs`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const nowS = () => Math.floor(Date.now() / 1000);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

interface Mint {
  sub?: string;
  email?: string | null;
  /** true unless given; null leaves the claim out. */
  email_verified?: unknown;
  name?: string;
  preferred_username?: string;
  roles?: unknown;
  iat?: number;
  exp?: number;
  nbf?: number;
  iss?: string;
  aud?: string | string[];
  kid?: string;
  key?: SigningKey;
  claims?: Record<string, unknown>;
}

describeEachDatabase('single sign-on (OpenID Connect)', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  const jwks = new JwksServer();
  let rsa: SigningKey;
  let ec: SigningKey;
  const http = () => request(app.server);

  /** A provider token; by default valid, for a fresh subject, issued a minute ago. */
  async function mint(options: Mint = {}): Promise<string> {
    const key = options.key ?? rsa;
    const subject = options.sub ?? `subject-${randomBytes(6).toString('hex')}`;
    const claims: Record<string, unknown> = { ...options.claims };
    if (options.email !== null) claims.email = options.email ?? `${subject}@sso.example.com`;
    if (options.email_verified !== null) claims.email_verified = options.email_verified ?? true;
    if (options.name !== undefined) claims.name = options.name;
    if (options.preferred_username !== undefined) claims.preferred_username = options.preferred_username;
    if (options.roles !== undefined) claims.roles = options.roles;
    if (options.nbf !== undefined) claims.nbf = options.nbf;
    const jwt = new SignJWT(claims)
      .setProtectedHeader({ alg: key.alg, kid: options.kid ?? key.kid, typ: 'JWT' })
      .setIssuer(options.iss ?? ISSUER)
      .setAudience(options.aud ?? [AUDIENCE, 'account'])
      .setIssuedAt(options.iat ?? nowS() - 60)
      .setExpirationTime(options.exp ?? nowS() + 600);
    if (options.sub !== '') jwt.setSubject(subject);
    return jwt.sign(key.pair.privateKey);
  }

  const userCount = () => app.app.get(UsersService).count();
  const me = async (token: string) => expectData(await graphql(app, '{ me { id name email role } }', undefined, { token })).me;

  /** 401 problem+json on REST and UNAUTHENTICATED on GraphQL, for the same token. */
  async function expectRefused(token: string, detail?: RegExp): Promise<void> {
    const problem = expectProblem(await http().get('/posts').set(bearer(token)), 401, 'UNAUTHENTICATED');
    if (detail) expect(problem.detail).toMatch(detail);
    const result = await graphql(app, '{ me { id } }', undefined, { token });
    expect(result.status).toBe(401);
    expectError(result, 'UNAUTHENTICATED');
  }

  beforeAll(async () => {
    rsa = await signingKey('rsa-1', 'RS256');
    ec = await signingKey('ec-1', 'ES256');
    jwks.keys = [rsa.jwk, ec.jwk];
    const url = await jwks.start();
    app = await startTestApp(kind, {
      env: { AUTH_JWKS_URL: url, AUTH_ISSUER: ISSUER, AUTH_AUDIENCE: AUDIENCE, AUTH_JWKS_COOLDOWN_MS: String(COOLDOWN_MS) },
    });
    urls = await listen(app);
  });
  afterAll(async () => {
    await app?.close();
    await jwks.close();
  });

  describe('valid tokens', () => {
    it('an RS256 token works over REST; its first use creates the user from name and email (lower-cased)', async () => {
      const token = await mint({ sub: 'carol', email: 'Carol.Jones@Example.COM', name: 'Carol Jones' });
      const created = await http().post('/posts').set(bearer(token)).send({ title: 'From SSO', body: 'Hello' }).expect(201);
      const user = (await http().get(`/users/${created.body.authorId}`).expect(200)).body;
      expect(user).toMatchObject({ name: 'Carol Jones', email: 'carol.jones@example.com', role: 'author' });
      expect(await me(token)).toEqual({ id: user.id, name: 'Carol Jones', email: 'carol.jones@example.com', role: 'AUTHOR' });
    });

    it('an ES256 token works over GraphQL (a mutation as well as me)', async () => {
      const token = await mint({ key: ec, name: 'Erin EC' });
      const user = await me(token);
      expect(user).toMatchObject({ name: 'Erin EC', role: 'AUTHOR' });
      const result = await graphql(app, 'mutation { createPost(input: { title: "EC", body: "signed with P-256" }) { author { id } } }', undefined, { token });
      expect(expectData(result).createPost.author.id).toBe(user.id);
    });

    it('later tokens of the same subject are the same user; name falls back to preferred_username, then email', async () => {
      const first = await me(await mint({ sub: 'dave', email: 'dave@sso.example.com', preferred_username: 'dave.d' }));
      expect(first.name).toBe('dave.d');
      const again = await me(await mint({ sub: 'dave', email: 'dave@sso.example.com', iat: nowS() - 30 }));
      expect(again.id).toBe(first.id);
      expect((await me(await mint({ email: 'only-mail@sso.example.com' }))).name).toBe('only-mail@sso.example.com');
    });

    it("the user's personal-data export names the linked identity; a provider token under 5 minutes old needs no password, an older one cannot give any", async () => {
      const token = await mint({ sub: 'grace', email: 'grace@sso.example.com', name: 'Grace' });
      const { id } = await me(token);
      const exported = await http().get(`/users/${id}/export`).set(bearer(token)).expect(200);
      expect(exported.body.user).toMatchObject({ id, email: 'grace@sso.example.com' });
      expect(exported.body.externalIdentities).toEqual([{ id: expect.any(Number), issuer: ISSUER, subject: 'grace', createdAt: expect.any(String) }]);
      expect(exported.text).not.toContain('!external');
      // Issued 10 minutes ago: the account has no password to give instead.
      const old = await mint({ sub: 'grace', email: 'grace@sso.example.com', iat: nowS() - 600 });
      expectProblem(await http().get(`/users/${id}/export`).set(bearer(old)), 400, 'BAD_USER_INPUT');
      expectProblem(await http().get(`/users/${id}/export`).set(bearer(old)).set('X-Current-Password', '!external'), 403, 'FORBIDDEN');
    });

    it('a token of another issuer is refused, even for a known sub', async () => {
      await expectRefused(await mint({ sub: 'dave', iss: 'https://elsewhere.test/realms/blog' }), /"iss"/);
    });

    it('works in a WebSocket connection_init, and over the socket', async () => {
      const token = await mint({ name: 'Socket Sam' });
      const client = wsClient(urls.ws, { token });
      try {
        await client.connected;
        const operation = new LiveSubscription(client.client, '{ me { name role } }');
        const [result] = await operation.received(1);
        expect(result).toEqual({ name: 'Socket Sam', role: 'AUTHOR' });
      } finally {
        await client.dispose();
      }
    });

    it('works on an event stream (graphql-sse); a refused token is 401 there too', async () => {
      const stream = await rawStream(urls.http, { query: '{ me { name } }' }, bearer(await mint({ name: 'Stream Sue' })));
      try {
        expect(stream.text).toBeUndefined();
        await until('an event', () => stream.events.some((event) => event.event === 'next'));
        expect(stream.events.find((event) => event.event === 'next')!.data).toEqual({ data: { me: { name: 'Stream Sue' } } });
      } finally {
        stream.close();
      }
      const refused = await rawStream(urls.http, { query: '{ me { name } }' }, bearer(await mint({ iss: 'https://evil.test' })));
      refused.close();
      expect(refused.response.status).toBe(401);
    });

    it('a WebSocket with a refused provider token is closed with 4403', async () => {
      const client = wsClient(urls.ws, { token: await mint({ aud: 'another-api' }) });
      expect((await client.closed).code).toBe(4403);
    });

    it('concurrent first tokens of one subject create one user', async () => {
      const token = await mint({ name: 'Racing Rita' });
      const before = await userCount();
      const results = await Promise.all(Array.from({ length: 12 }, () => graphql(app, '{ me { id } }', undefined, { token })));
      const ids = new Set(results.map((result) => expectData(result).me.id));
      expect(ids.size).toBe(1);
      expect((await userCount()) - before).toBe(1);
    });

    it('local sign-in (POST /tokens) and our HS256 tokens still work beside it', async () => {
      const token = await tokenFor(app, ALICE);
      expect((await me(token)).email).toBe(ALICE.email);
    });

    it('an account created by single sign-on has no usable password', async () => {
      const token = await mint({ email: 'nopass@sso.example.com' });
      await me(token);
      for (const password of ['!external', '', 'password-guess']) {
        const response = await http().post('/tokens').send({ email: 'nopass@sso.example.com', password });
        expect(response.status).not.toBe(201);
      }
    });
  });

  describe('roles', () => {
    it('the roles claim holding blog-admin makes an admin; the next token without it demotes, old tokens do not undo it', async () => {
      const issued = nowS() - 100;
      const adminToken = await mint({ sub: 'frank', roles: ['reader', 'blog-admin'], iat: issued });
      const frank = await me(adminToken);
      expect(frank.role).toBe('ADMIN');
      await http().patch('/users/3').set(bearer(adminToken)).send({ name: 'Bob by Frank' }).expect(200);

      const authorToken = await mint({ sub: 'frank', roles: ['reader'], iat: issued + 10 });
      expect((await me(authorToken)).role).toBe('AUTHOR');
      expectProblem(await http().patch('/users/3').set(bearer(authorToken)).send({ name: 'Nope' }), 403, 'FORBIDDEN');
      // The admin token is still valid, but older than the one that demoted: it acts as an author.
      expect((await me(adminToken)).role).toBe('AUTHOR');
      expectProblem(await http().patch('/users/3').set(bearer(adminToken)).send({ name: 'Nope' }), 403, 'FORBIDDEN');
      expect((await http().get(`/users/${frank.id}`).expect(200)).body.role).toBe('author');

      // Promoted again by a newer token.
      expect((await me(await mint({ sub: 'frank', roles: ['blog-admin'], iat: issued + 20 }))).role).toBe('ADMIN');
    });

    it('the literal provider roles "editor" and "moderator" make an editor and a moderator; blog-admin wins over both', async () => {
      const issued = nowS() - 100;
      expect((await me(await mint({ sub: 'hana', roles: ['reader', 'moderator'], iat: issued }))).role).toBe('MODERATOR');
      const editorToken = await mint({ sub: 'hana', roles: ['moderator', 'editor'], iat: issued + 10 });
      const hana = await me(editorToken);
      expect(hana.role).toBe('EDITOR');
      expect((await http().get(`/users/${hana.id}`).expect(200)).body.role).toBe('editor');
      // An editor changes another's post; the token's role is applied.
      const post = await http().post('/posts').set(bearer(await mint({ sub: 'hana-author', roles: [] }))).send({ title: 'T', body: 'B' }).expect(201);
      await http().patch(`/posts/${post.body.id}`).set(bearer(editorToken)).send({ title: 'Edited' }).expect(200);
      expect((await me(await mint({ sub: 'hana', roles: ['editor', 'blog-admin'], iat: issued + 20 }))).role).toBe('ADMIN');
      expect((await me(await mint({ sub: 'hana', roles: ['Editor', 'MODERATOR'], iat: issued + 30 }))).role).toBe('AUTHOR');
    });

    it('a roles claim that is not an array, or names the role in another case, is no admin', async () => {
      for (const roles of ['blog-admin', { 'blog-admin': true }, ['Blog-Admin'], [], null]) {
        expect((await me(await mint({ roles }))).role).toBe('AUTHOR');
      }
    });

    it('a demotion closes the way for an open WebSocket of that user: it re-checks and acts as an author', async () => {
      const issued = nowS() - 100;
      const adminToken = await mint({ sub: 'gina', roles: ['blog-admin'], iat: issued });
      await me(adminToken);
      const client = wsClient(urls.ws, { token: adminToken });
      try {
        await client.connected;
        await me(await mint({ sub: 'gina', roles: [], iat: issued + 5 }));
        const operation = new LiveSubscription(client.client, '{ me { role } }');
        expect((await operation.received(1))[0]).toEqual({ role: 'AUTHOR' });
      } finally {
        await client.dispose();
      }
    });
  });

  it('two open sockets holding tokens with different roles do not flip the role back and forth', async () => {
    const publisher = app.app.get(EventPublisher);
    const issued = nowS() - 100;
    const adminToken = await mint({ sub: 'ivy', roles: ['blog-admin'], iat: issued });
    const authorToken = await mint({ sub: 'ivy', roles: [], iat: issued + 5 });
    await me(adminToken);
    const sockets = [wsClient(urls.ws, { token: adminToken }), wsClient(urls.ws, { token: authorToken })];
    const spy = vi.spyOn(publisher, 'credentialsChanged');
    try {
      await Promise.all(sockets.map((socket) => socket.connected));
      await sleep(300);
      expect(spy).toHaveBeenCalledTimes(1); // the demotion, once; the rechecks it causes change nothing
      expect((await me(adminToken)).role).toBe('AUTHOR');
      expect(sockets.flatMap((socket) => socket.closes)).toEqual([]);
    } finally {
      spy.mockRestore();
      await Promise.all(sockets.map((socket) => socket.dispose()));
    }
  });

  describe('tokens refused with 401', () => {
    it('wrong issuer', async () => expectRefused(await mint({ iss: 'https://id.test/realms/other' }), /"iss"/));
    it('wrong audience', async () => expectRefused(await mint({ aud: 'another-api' }), /"aud"/));
    it('expired (beyond the clock tolerance)', async () => expectRefused(await mint({ iat: nowS() - 600, exp: nowS() - 120 }), /expired/));
    it('not yet valid (nbf in the future)', async () => expectRefused(await mint({ nbf: nowS() + 600 }), /"nbf"/));
    it('issued in the future', async () => expectRefused(await mint({ iat: nowS() + 600 }), /"iat"/));
    it('without sub', async () => expectRefused(await mint({ sub: '' }), /"sub"/));
    it('without exp', async () => {
      const token = await new SignJWT({ email: 'noexp@sso.example.com' })
        .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setSubject('noexp')
        .setIssuedAt()
        .sign(rsa.pair.privateKey);
      await expectRefused(token, /"exp"/);
    });

    it('alg none', async () => {
      const payload = { iss: ISSUER, aud: AUDIENCE, sub: 'mallory', email: 'mallory@sso.example.com', iat: nowS(), exp: nowS() + 600 };
      await expectRefused(`${b64({ alg: 'none', typ: 'JWT' })}.${b64(payload)}.`);
      await expectRefused(`${b64({ alg: 'none', kid: rsa.kid })}.${b64(payload)}.x`);
    });

    it('HS256 signed with the provider\'s public key (PEM or JWK) as the secret', async () => {
      const payload = { iss: ISSUER, aud: AUDIENCE, sub: 'mallory', email: 'mallory@sso.example.com', iat: nowS(), exp: nowS() + 600 };
      for (const secret of [await exportSPKI(rsa.pair.publicKey), JSON.stringify(rsa.jwk)]) {
        const input = `${b64({ alg: 'HS256', typ: 'JWT', kid: rsa.kid })}.${b64(payload)}`;
        await expectRefused(`${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`);
      }
    });

    it('other algorithms (RS512, PS256) even under a published RSA key', async () => {
      const privateKey = createPrivateKey({ key: (await exportJWK(rsa.pair.privateKey)) as import('node:crypto').JsonWebKey, format: 'jwk' });
      const payload = { iss: ISSUER, aud: AUDIENCE, sub: 'rs512', email: 'rs512@sso.example.com', iat: nowS(), exp: nowS() + 600 };
      for (const alg of ['RS512', 'PS256']) {
        const input = `${b64({ alg, kid: rsa.kid })}.${b64(payload)}`;
        const options = alg === 'PS256' ? { key: privateKey, padding: 6, saltLength: 32 } : privateKey;
        const signature = sign(alg === 'PS256' ? 'sha256' : 'sha512', Buffer.from(input), options).toString('base64url');
        await expectRefused(`${input}.${signature}`, /algorithm/);
      }
    });

    it('a forged signature: a foreign key under a published kid, or a tampered payload', async () => {
      const foreign = await signingKey(rsa.kid, 'RS256');
      await expectRefused(await mint({ key: foreign }), /signature/);
      const [header, , signature] = (await mint()).split('.');
      await expectRefused(`${header}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: 'x', iat: nowS(), exp: nowS() + 600, roles: ['blog-admin'] })}.${signature}`);
    });

    it('a first token without a usable email claim (no account can be created)', async () => {
      await expectRefused(await mint({ email: null }), /email/);
      await expectRefused(await mint({ email: 'not-an-address' }), /email/);
      await expectRefused(await mint({ email: 'evil\u202e@sso.example.com' }), /email/);
    });

    it('malformed tokens: 401, never 500', async () => {
      const valid = await mint();
      for (const token of [valid.slice(0, -3), `${valid}x`, `${b64({ alg: 'RS256', kid: 5 })}.${b64('x')}.AAAA`, `${b64({ alg: 'ES256', kid: 'ec-1' })}.e30.AAAA`, `${b64('[]')}.e30.AAAA`]) {
        expectProblem(await http().get('/posts').set(bearer(token)), 401, 'UNAUTHENTICATED');
      }
    });
  });

  describe('e-mail addresses of local accounts are not taken over', () => {
    it('a new subject with a local account\'s e-mail (any case) is refused with 401, the account untouched, no user created', async () => {
      const before = await userCount();
      for (const email of [ALICE.email, 'ALICE@example.com', ADMIN.email]) {
        await expectRefused(await mint({ email, roles: ['blog-admin'] }), /already belongs to another/);
      }
      expect(await userCount()).toBe(before);
      expect((await http().get('/users/2').expect(200)).body).toMatchObject({ email: ALICE.email, role: 'author' });
      await tokenFor(app, ALICE);
    });

    it('nor the account of another subject with the same e-mail', async () => {
      await me(await mint({ email: 'shared@sso.example.com' }));
      await expectRefused(await mint({ email: 'shared@sso.example.com' }), /already belongs to another/);
    });
  });

  describe('an address the provider did not verify', () => {
    it('email_verified false or absent: no account is created with it, and the address stays free for its owner', async () => {
      const before = await userCount();
      await expectRefused(await mint({ email: 'unverified@sso.example.com', email_verified: false }), /verified/);
      await expectRefused(await mint({ email: 'unverified@sso.example.com', email_verified: null }), /verified/);
      await expectRefused(await mint({ email: 'unverified@sso.example.com', email_verified: 'false' }), /verified/);
      expect(await userCount()).toBe(before);
      await http().post('/users').send({ name: 'The owner', email: 'unverified@sso.example.com', password: 'owner-password' }).expect(201);
      // Nor does it reach a local account's address (any case).
      await expectRefused(await mint({ email: 'Alice@Example.com', email_verified: false, roles: ['blog-admin'] }), /verified/);
      expect((await http().get('/users/2').expect(200)).body).toMatchObject({ email: ALICE.email, role: 'author' });
    });
  });

  describe("the user's revocation stamp", () => {
    it('DELETE /users/{id}/tokens refuses the provider tokens issued before, on every door, and closes their socket and stream; later ones work', async () => {
      const token = await mint({ sub: 'ursula', name: 'Ursula', iat: nowS() - 60 });
      const ursula = await me(token);
      const socket = wsClient(urls.ws, { token });
      const stream = await rawStream(urls.http, { query: 'subscription { postCreated { id } }' }, bearer(token));
      try {
        await socket.connected;
        expect(stream.response.status).toBe(200);
        await http().delete(`/users/${ursula.id}/tokens`).set(bearer(token)).expect(204);
        expect((await socket.closed).code).toBe(4403);
        await stream.ended;
      } finally {
        stream.close();
        await socket.dispose();
      }
      await expectRefused(token, /revoked/);
      await expectRefused(await mint({ sub: 'ursula', iat: nowS() - 5 }), /revoked/);
      const again = wsClient(urls.ws, { token });
      expect((await again.closed).code).toBe(4403);
      const refused = await rawStream(urls.http, { query: '{ me { id } }' }, bearer(token));
      refused.close();
      expect(refused.response.status).toBe(401);
      // The stamp is to the millisecond, iat to the second: a token of the next second is later.
      expect((await me(await mint({ sub: 'ursula', iat: nowS() + 2 }))).id).toBe(ursula.id);
    });

    it('a password set by an admin refuses the earlier provider tokens too', async () => {
      const token = await mint({ sub: 'victor', iat: nowS() - 60 });
      const victor = await me(token);
      await http().patch(`/users/${victor.id}`).set(bearer(await tokenFor(app, ADMIN))).send({ password: 'set-by-admin' }).expect(200);
      await expectRefused(token, /revoked/);
    });
  });

  it("creating an API key takes the provider token's iat as the sign-in time: under 5 minutes old, yes; older, it needs a password (which such an account has not)", async () => {
    const fresh = await mint({ sub: 'wanda', iat: nowS() - 60 });
    const wanda = await me(fresh);
    const stale = await mint({ sub: 'wanda', iat: nowS() - 10 * 60 });
    const create = (token: string, extra: Record<string, unknown> = {}) =>
      http().post(`/users/${wanda.id}/api-keys`).set(bearer(token)).send({ name: 'From SSO', scopes: ['read'], ...extra });
    const refused = expectProblem(await create(stale), 400, 'BAD_USER_INPUT');
    expect(JSON.stringify(refused.errors)).toContain('currentPassword');
    expectProblem(await create(stale, { currentPassword: '!external' }), 403, 'FORBIDDEN');
    await create(fresh).expect(201);
  });

  describe('deleted users', () => {
    it('tokens issued before the deletion are refused; a later token creates a new user', async () => {
      const token = await mint({ sub: 'hank', name: 'Hank' });
      const hank = await me(token);
      await http().delete(`/users/${hank.id}`).set(bearer(token)).expect(204);
      await expectRefused(token, /deleted/);
      await expectRefused(await mint({ sub: 'hank', iat: nowS() - 5 }), /deleted/);
      const fresh = await me(await mint({ sub: 'hank', name: 'Hank Again', iat: nowS() + 2 }));
      expect(fresh.id).not.toBe(hank.id);
      expect(fresh.name).toBe('Hank Again');
    });
  });

  describe('the provider\'s keys', () => {
    it('a key rotation is picked up: a new kid makes the service refetch the key set', async () => {
      const rotated = await signingKey('rsa-2', 'RS256');
      jwks.keys = [rotated.jwk, ec.jwk];
      await sleep(COOLDOWN_MS + 100);
      const before = jwks.requests;
      expect((await me(await mint({ key: rotated, name: 'After Rotation' }))).name).toBe('After Rotation');
      expect(jwks.requests).toBe(before + 1);
      // The new key is cached now: no further fetches.
      await me(await mint({ key: rotated }));
      expect(jwks.requests).toBe(before + 1);
      rsa = rotated;
    });

    it('random unknown kids cause at most one fetch per cooldown', async () => {
      await sleep(COOLDOWN_MS + 100);
      const before = jwks.requests;
      const started = Date.now();
      /** Fetches allowed since `started`: one, and one more per cooldown begun since (a slow machine). */
      const allowed = () => 1 + Math.floor((Date.now() - started) / COOLDOWN_MS);
      const kids = Array.from({ length: 40 }, () => randomBytes(8).toString('hex'));
      const tokens = await Promise.all(kids.map((kid) => mint({ kid })));
      const statuses = await Promise.all(tokens.map(async (token) => (await http().get('/posts').set(bearer(token))).status));
      expect(new Set(statuses)).toEqual(new Set([401]));
      // One after the other too (concurrent ones would share one fetch anyway).
      for (const token of tokens.slice(0, 20)) expectProblem(await http().get('/posts').set(bearer(token)), 401, 'UNAUTHENTICATED');
      expect(jwks.requests - before).toBeGreaterThanOrEqual(1);
      expect(jwks.requests - before).toBeLessThanOrEqual(allowed());

      await sleep(COOLDOWN_MS + 100);
      const second = jwks.requests;
      await Promise.all(tokens.map((token) => http().get('/posts').set(bearer(token))));
      expect(jwks.requests - second).toBe(1);
    });

    it('the provider unreachable: 503 with Retry-After (the token was not judged), and no fetch storm', async () => {
      await sleep(COOLDOWN_MS + 100);
      jwks.failing = true;
      try {
        const before = jwks.requests;
        const started = Date.now();
        const unknownKid = await mint({ kid: 'rsa-3' });
        const response = await http().get('/posts').set(bearer(unknownKid));
        expectProblem(response, 503, 'SERVICE_UNAVAILABLE');
        expect(response.headers['retry-after']).toBe('5');
        for (let i = 0; i < 20; i++) expect((await http().get('/posts').set(bearer(unknownKid))).status).toBe(503);
        // One fetch, and one more per cooldown begun since (on a slow machine): not one per request.
        expect(jwks.requests - before).toBeGreaterThanOrEqual(1);
        expect(jwks.requests - before).toBeLessThanOrEqual(1 + Math.floor((Date.now() - started) / COOLDOWN_MS));
        // Tokens under a cached key still work meanwhile.
        await me(await mint());
      } finally {
        jwks.failing = false;
      }
      await sleep(COOLDOWN_MS + 100);
      await me(await mint());
    });
  });
});

describe('single sign-on off (no AUTH_JWKS_URL)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('sqlite');
  });
  afterAll(() => app?.close());

  it('a provider token is refused with 401; local tokens work', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const token = await new SignJWT({ email: 'x@sso.example.com' })
      .setProtectedHeader({ alg: 'RS256', kid: 'k' })
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setSubject('x')
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(privateKey);
    expectProblem(await request(app.server).get('/posts').set(bearer(token)), 401, 'UNAUTHENTICATED');
    await request(app.server).get('/posts').set(bearer(await tokenFor(app, ALICE))).expect(200);
  });
});


