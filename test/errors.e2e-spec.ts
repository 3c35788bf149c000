import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, bearer, tokenFor } from './support/auth.js';
import { expectNoLeaks, expectProblem } from './support/problems.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';
import { useApp } from './support/fixture.js';

const MIB = 1_048_576;
const validUser = () => ({ name: 'Body Test', email: `body.${Date.now()}.${Math.random()}@example.com`, password: 'body-password' });

/** A JSON body of exactly `size` bytes: a valid user padded with spaces. */
function jsonOfSize(size: number): string {
  const json = JSON.stringify(validUser());
  return json + ' '.repeat(size - Buffer.byteLength(json));
}

describeEachDatabase('errors', (kind) => {
  const app = useApp(kind, { signIn: [] });
  const http = () => request(app.server);

  describe('problem+json', () => {
    it('has exactly {type, title, status, detail, instance, code} for a plain error', async () => {
      const response = await http().get('/users/999');
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.body).toBeDefined();
      const body = JSON.parse(response.text);
      expect(body).toEqual({
        type: '/problems/not-found',
        title: 'Not Found',
        status: 404,
        detail: 'User 999 does not exist',
        instance: '/users/999',
        code: 'NOT_FOUND',
      });
    });

    it('adds errors[{field, message}] for validation failures; instance drops the query', async () => {
      const response = await http().post('/users?x=1').send({ name: '', email: 'bad', password: 'p' });
      const problem = expectProblem(response, 400, 'BAD_USER_INPUT');
      expect(problem.type).toBe('/problems/bad-user-input');
      expect(problem.title).toBe('Bad Request');
      expect(problem.instance).toBe('/users');
      expect(problem.errors!.map((error) => error.field).sort()).toEqual(['email', 'name', 'password']);
      for (const error of problem.errors!) expect(Object.keys(error).sort()).toEqual(['field', 'message']);
    });

    it('404 for an unknown route, as problem+json', async () => {
      for (const path of ['/nope', '/users/1/unknown', '/api/users']) {
        const problem = expectProblem(await http().get(path), 404, 'NOT_FOUND');
        expect(problem.instance).toBe(path);
      }
      expectProblem(await http().post('/nope').send({}), 404, 'NOT_FOUND');
    });
  });

  describe('request bodies', () => {
    it('400 for invalid JSON', async () => {
      for (const body of ['{"name": ', '{name: "x"}', "{'a': 1}", '{"a": 1,}']) {
        const response = await http().post('/users').set('content-type', 'application/json').send(body);
        const problem = expectProblem(response, 400, 'BAD_USER_INPUT');
        expect(problem.detail).toMatch(/JSON/);
      }
    });

    it('400 for an empty body that claims to be JSON', async () => {
      const response = await http().post('/users').set('content-type', 'application/json').send('');
      expectProblem(response, 400);
    });

    it('accepts an application/*+json body', async () => {
      const response = await http()
        .post('/users')
        .set('content-type', 'application/merge-patch+json')
        .send(JSON.stringify(validUser()));
      expect(response.status).toBe(201);
    });

    it('415 for text/plain, form and multipart bodies, even when they hold JSON', async () => {
      const user = validUser();
      const json = JSON.stringify(user);
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
        const response = await http().post('/users').set('content-type', type).send(json);
        const problem = expectProblem(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
        expect(problem.title).toBe('Unsupported Media Type');
      }
      const form = await http().post('/tokens').type('form').send({ email: ALICE.email, password: ALICE.password });
      expectProblem(form, 415, 'UNSUPPORTED_MEDIA_TYPE');
      // Nothing was created from any of them.
      const list = await http().get('/users?limit=100').expect(200);
      expect(list.body.map((u: { email: string }) => u.email)).not.toContain(user.email);
    });

    it('413 for a body over 1 MiB; exactly 1 MiB is read', async () => {
      const over = await http().post('/users').set('content-type', 'application/json').send(jsonOfSize(MIB + 1));
      const problem = expectProblem(over, 413, 'PAYLOAD_TOO_LARGE');
      expect(problem.title).toBe('Content Too Large');
      const atLimit = await http().post('/users').set('content-type', 'application/json').send(jsonOfSize(MIB));
      expect(atLimit.status).toBe(201);
    });

    it('413 on a signed-in PATCH too', async () => {
      const token = await tokenFor(app, ALICE);
      const response = await http()
        .patch('/users/2')
        .set(bearer(token))
        .set('content-type', 'application/json')
        .send(`{"name": "${'x'.repeat(MIB)}"}`);
      expectProblem(response, 413, 'PAYLOAD_TOO_LARGE');
    });
  });

  describe('headers', () => {
    it('sends the security headers and no X-Powered-By, on success and on errors', async () => {
      for (const response of [await http().get('/users'), await http().get('/users/999'), await http().get('/nope')]) {
        expect(response.headers['x-content-type-options']).toBe('nosniff');
        expect(response.headers['x-powered-by']).toBeUndefined();
        expect(response.headers['x-frame-options']).toBeDefined();
      }
    });

    it('sends no CORS headers when CORS_ORIGINS is unset', async () => {
      const response = await http().get('/users').set('Origin', 'https://app.example.com');
      expect(response.headers['access-control-allow-origin']).toBeUndefined();
      const preflight = await http()
        .options('/users')
        .set('Origin', 'https://app.example.com')
        .set('Access-Control-Request-Method', 'POST');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    });

    it('sends no cookies', async () => {
      const responses = [await http().post('/tokens').send(ALICE), await http().get('/users')];
      for (const response of responses) expect(response.headers['set-cookie']).toBeUndefined();
    });
  });
});

describeEachDatabase('errors: settings', (kind) => {
  describe('BODY_LIMIT_BYTES=2048', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind, { env: { BODY_LIMIT_BYTES: '2048' } });
    });
    afterAll(() => app?.close());

    it('413 above the configured limit, 201 at it', async () => {
      const over = await request(app.server).post('/users').set('content-type', 'application/json').send(jsonOfSize(2049));
      expectProblem(over, 413, 'PAYLOAD_TOO_LARGE');
      const at = await request(app.server).post('/users').set('content-type', 'application/json').send(jsonOfSize(2048));
      expect(at.status).toBe(201);
    });
  });

  describe('CORS_ORIGINS=https://app.example.com', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind, { env: { CORS_ORIGINS: 'https://app.example.com,https://admin.example.com' } });
    });
    afterAll(() => app?.close());

    it('an allowed origin gets Access-Control-Allow-Origin', async () => {
      for (const origin of ['https://app.example.com', 'https://admin.example.com']) {
        const response = await request(app.server).get('/users').set('Origin', origin).expect(200);
        expect(response.headers['access-control-allow-origin']).toBe(origin);
      }
    });

    it('Vary names Origin (and still Accept), so caches keep one answer per origin', async () => {
      const response = await request(app.server).get('/users').set('Origin', 'https://app.example.com').expect(200);
      const vary = String(response.headers.vary).toLowerCase().split(/\s*,\s*/);
      expect(vary).toContain('origin');
      expect(vary).toContain('accept');
    });

    it('answers a preflight from an allowed origin for PATCH with Authorization', async () => {
      const response = await request(app.server)
        .options('/users/2')
        .set('Origin', 'https://app.example.com')
        .set('Access-Control-Request-Method', 'PATCH')
        .set('Access-Control-Request-Headers', 'authorization,content-type');
      expect(response.status).toBeLessThan(300);
      expect(response.headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect(response.headers['access-control-allow-methods']).toMatch(/PATCH/);
      expect(response.headers['access-control-allow-headers']?.toLowerCase()).toMatch(/authorization/);
    });

    it('exposes Location and Link to the browser', async () => {
      const response = await request(app.server).get('/users').set('Origin', 'https://app.example.com');
      const exposed = String(response.headers['access-control-expose-headers']).toLowerCase();
      expect(exposed).toContain('location');
      expect(exposed).toContain('link');
    });

    it('another origin gets no Access-Control-Allow-Origin', async () => {
      for (const origin of ['https://evil.example.com', 'http://app.example.com', 'https://app.example.com.evil.com', 'null']) {
        const response = await request(app.server).get('/users').set('Origin', origin);
        expect(response.headers['access-control-allow-origin']).toBeUndefined();
        const preflight = await request(app.server)
          .options('/users')
          .set('Origin', origin)
          .set('Access-Control-Request-Method', 'POST');
        expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      }
    });
  });

  describe('an unexpected failure', () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind);
    });
    afterAll(() => app?.close());

    it('is a 500 problem with no stack trace, SQL or table names', async () => {
      // Break the schema under the running app, so the next query fails inside the driver.
      await app.app.get(DataSource).query('ALTER TABLE users RENAME TO users_gone');
      try {
        const response = await request(app.server).get('/users/2');
        const problem = expectProblem(response, 500, 'INTERNAL_SERVER_ERROR');
        expect(problem.detail).toBe('An unexpected error occurred');
        expect(response.text).not.toMatch(/users_gone|relation|no such table|"users"/i);
        const list = await request(app.server).get('/users');
        expectProblem(list, 500, 'INTERNAL_SERVER_ERROR');
        expectNoLeaks(list.text);
      } finally {
        await app.app.get(DataSource).query('ALTER TABLE users_gone RENAME TO users');
      }
      await request(app.server).get('/users/2').expect(200);
    });
  });
});
