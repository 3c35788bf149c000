import { createHmac } from 'node:crypto';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, BOB, bearer, tokenFor } from './support/auth.js';
import { errorFields, expectProblem } from './support/problems.js';
import { describeEachDatabase, startTestApp, TEST_JWT_SECRET, type TestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);

/** A compact JWS signed with HMAC-SHA256, built by hand so tests can forge any header or claim. */
function signJwt(payload: Record<string, unknown>, secret = TEST_JWT_SECRET, header: Record<string, unknown> = { alg: 'HS256', typ: 'JWT' }): string {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

function decodePayload(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8'));
}

describeEachDatabase('tokens', (kind) => {
  const app = useApp(kind, { signIn: [] });
  const http = () => request(app.server);

  describe('POST /tokens', () => {
    it('201 with {accessToken, tokenType: "Bearer", expiresIn}', async () => {
      const response = await http().post('/tokens').send(ALICE).expect(201);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(Object.keys(response.body).sort()).toEqual(['accessToken', 'expiresIn', 'tokenType']);
      expect(response.body.tokenType).toBe('Bearer');
      expect(response.body.expiresIn).toBe(3600);
      expect(response.body.accessToken).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const header = JSON.parse(Buffer.from(response.body.accessToken.split('.')[0], 'base64url').toString());
      expect(header.alg).toBe('HS256');
      const payload = decodePayload(response.body.accessToken);
      expect(payload.sub).toBe('2');
      expect((payload.exp as number) - (payload.iat as number)).toBe(3600);
      expect(JSON.stringify(payload)).not.toMatch(/password|alice-password/);
    });

    it('the token works on PATCH /users/{self}', async () => {
      const token = await tokenFor(app, BOB);
      const response = await http().patch('/users/3').set(bearer(token)).send({ name: 'Bob Writer' }).expect(200);
      expect(response.body.id).toBe(3);
    });

    it('accepts the Bearer scheme in any letter case (RFC 9110)', async () => {
      const token = await tokenFor(app, BOB);
      for (const scheme of ['bearer', 'BEARER', 'Bearer ']) {
        await http().patch('/users/3').set('Authorization', `${scheme} ${token}`).send({ name: 'Bob Writer' }).expect(200);
      }
    });

    it('signs in with the e-mail in another letter case (and surrounding spaces)', async () => {
      const response = await http().post('/tokens').send({ email: '  ALICE@Example.COM ', password: ALICE.password }).expect(201);
      expect(decodePayload(response.body.accessToken).sub).toBe('2');
    });

    it('401 problem+json for a wrong password and for an unknown e-mail, alike', async () => {
      const wrong = expectProblem(await http().post('/tokens').send({ ...ALICE, password: 'wrong-password' }), 401, 'UNAUTHENTICATED');
      const unknown = expectProblem(
        await http().post('/tokens').send({ email: 'nobody@example.com', password: 'alice-password' }),
        401,
        'UNAUTHENTICATED',
      );
      // The two failures must not tell an attacker which e-mails exist.
      expect(unknown.detail).toBe(wrong.detail);
      expect(wrong.detail).not.toContain('wrong-password');
    });

    it('the password is case-sensitive', async () => {
      expectProblem(await http().post('/tokens').send({ ...ALICE, password: ALICE.password.toUpperCase() }), 401);
    });

    const invalid: [string, string, Record<string, unknown>][] = [
      ['email missing', 'email', { password: 'alice-password' }],
      ['password missing', 'password', { email: 'alice@example.com' }],
      ['email a number', 'email', { email: 5, password: 'alice-password' }],
      ['password a number', 'password', { email: 'alice@example.com', password: 12345678 }],
      ['an unknown field', 'remember', { ...ALICE, remember: true }],
    ];
    it.each(invalid)('400 for %s', async (_case, field, body) => {
      const response = await http().post('/tokens').send(body);
      expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(errorFields(response)).toContain(field);
    });

    it('400 for an empty body', async () => {
      expectProblem(await http().post('/tokens').set('content-type', 'application/json').send('{}'), 400, 'BAD_USER_INPUT');
    });
  });

  describe('bearer tokens that must be refused with 401', () => {
    let valid: string;
    beforeAll(async () => {
      valid = await tokenFor(app, ALICE);
    });

    /** 401 + WWW-Authenticate on a protected write and on a public read; nothing changes. */
    async function expectRefused(authorization: string): Promise<void> {
      const write = await http().patch('/users/2').set('Authorization', authorization).send({ name: 'Mallory' });
      expectProblem(write, 401, 'UNAUTHENTICATED');
      expect(write.headers['www-authenticate']).toBe('Bearer');
      const read = await http().get('/users/2').set('Authorization', authorization);
      expectProblem(read, 401, 'UNAUTHENTICATED');
      expect((await http().get('/users/2').expect(200)).body.name).toBe('Alice Author');
    }

    it('a valid token passes (control)', async () => {
      await http().get('/users/2').set(bearer(valid)).expect(200);
      const forged = signJwt({ sub: '2', iat: now(), exp: now() + 600 });
      await http().patch('/users/2').set(bearer(forged)).send({ name: 'Alice Author' }).expect(200);
    });

    it('alg: none', async () => {
      const payload = b64({ sub: '1', iat: now(), exp: now() + 600 });
      await expectRefused(`Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`);
      await expectRefused(`Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${payload}`);
      await expectRefused(`Bearer ${b64({ alg: 'NONE' })}.${payload}.${valid.split('.')[2]}`);
    });

    it('another algorithm (HS512) with the right secret', async () => {
      const header = { alg: 'HS512', typ: 'JWT' };
      const input = `${b64(header)}.${b64({ sub: '2', iat: now(), exp: now() + 600 })}`;
      const signature = createHmac('sha512', TEST_JWT_SECRET).update(input).digest('base64url');
      await expectRefused(`Bearer ${input}.${signature}`);
    });

    it('signed with another secret', async () => {
      await expectRefused(`Bearer ${signJwt({ sub: '2', iat: now(), exp: now() + 600 }, 'another-secret-another-secret-another')}`);
    });

    it('a tampered payload (sub changed to the admin)', async () => {
      const [header, , signature] = valid.split('.');
      const payload = { ...decodePayload(valid), sub: '1' };
      await expectRefused(`Bearer ${header}.${b64(payload)}.${signature}`);
      // And a deletion by the "admin" did not happen.
      const del = await http().delete('/users/3').set('Authorization', `Bearer ${header}.${b64(payload)}.${signature}`);
      expectProblem(del, 401);
      await http().get('/users/3').expect(200);
    });

    it('a truncated signature', async () => {
      await expectRefused(`Bearer ${valid.slice(0, -3)}`);
    });

    it('an expired token', async () => {
      await expectRefused(`Bearer ${signJwt({ sub: '2', iat: now() - 7200, exp: now() - 3600 })}`);
    });

    it('a token not valid yet (nbf in the future)', async () => {
      await expectRefused(`Bearer ${signJwt({ sub: '2', iat: now(), nbf: now() + 3600, exp: now() + 7200 })}`);
    });

    it('a subject that is not a user id', async () => {
      for (const sub of ['abc', '0', '-1', '1.5', 2, null]) {
        await expectRefused(`Bearer ${signJwt({ sub, iat: now(), exp: now() + 600 })}`);
      }
      await expectRefused(`Bearer ${signJwt({ iat: now(), exp: now() + 600 })}`);
    });

    it('a subject that names no user', async () => {
      await expectRefused(`Bearer ${signJwt({ sub: '999', iat: now(), exp: now() + 600 })}`);
    });

    it('malformed Authorization headers', async () => {
      for (const header of ['Bearer', 'Bearer ', 'Basic x', `Basic ${Buffer.from('alice@example.com:alice-password').toString('base64')}`, 'bearer-token', `Token ${valid}`, 'Bearer not.a.jwt!', 'Bearer abc', `Bearer ${valid} extra`]) {
        await expectRefused(header);
      }
    });

    it("a deleted user's token", async () => {
      const input = { name: 'Short Lived', email: `short.${Date.now()}@example.com`, password: 'short-lived-password' };
      const created = await http().post('/users').send(input).expect(201);
      const token = await tokenFor(app, { email: input.email, password: input.password });
      await http().delete(`/users/${created.body.id}`).set(bearer(token)).expect(204);
      const write = await http().patch('/users/2').set(bearer(token)).send({ name: 'Mallory' });
      expectProblem(write, 401, 'UNAUTHENTICATED');
      expectProblem(await http().get('/users').set(bearer(token)), 401, 'UNAUTHENTICATED');
    });
  });

  describe('token lifetime', () => {
    let shortApp: TestApp;
    beforeAll(async () => {
      shortApp = await startTestApp(kind, { env: { JWT_EXPIRES_IN: '120', SEED_DEMO_DATA: 'true' } });
    });
    afterAll(() => shortApp?.close());

    it('follows JWT_EXPIRES_IN, and a token of one app is refused by an app with another secret', async () => {
      const response = await request(shortApp.server).post('/tokens').send(ALICE).expect(201);
      expect(response.body.expiresIn).toBe(120);
      const payload = decodePayload(response.body.accessToken);
      expect((payload.exp as number) - (payload.iat as number)).toBe(120);

      const otherSecret = await startTestApp(kind, { env: { JWT_SECRET: 'a-completely-different-secret-of-40-chars' } });
      try {
        expectProblem(await request(otherSecret.server).get('/users/2').set(bearer(response.body.accessToken)), 401);
      } finally {
        await otherSecret.close();
      }
    });
  });
});
