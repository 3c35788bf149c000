import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphql, metricValue, sampleValue } from './support/graphql-client.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

describeEachDatabase('GET /metrics', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(() => app?.close());

  it('answers Prometheus text with every metric of the contract and the default process metrics', async () => {
    const response = await request(app.server).get('/metrics').expect(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4; charset=utf-8/);
    for (const [name, type] of [
      ['http_requests_total', 'counter'],
      ['http_request_duration_seconds', 'histogram'],
      ['graphql_operations_total', 'counter'],
      ['db_queries_total', 'counter'],
      ['ws_connections', 'gauge'],
      ['subscription_events_total', 'counter'],
      ['process_cpu_user_seconds_total', 'counter'],
      ['process_resident_memory_bytes', 'gauge'],
      ['nodejs_eventloop_lag_seconds', 'gauge'],
    ]) {
      expect(response.text).toContain(`# TYPE ${name} ${type}\n`);
      expect(response.text).toContain(`# HELP ${name} `);
    }
    expect(sampleValue(response.text, 'ws_connections')).toBe(0);
    expect(response.text).toContain('subscription_events_total{event="postCreated"} 0');
    await request(app.server).head('/metrics').expect(200);
  });

  it('counts HTTP requests by method, route template and status, with their duration', async () => {
    const before = await metricValue(app, 'http_requests_total', { method: 'GET', route: '/posts/:id', status: '200' });
    await request(app.server).get('/posts/1').expect(200);
    await request(app.server).get('/posts/2').expect(200);
    await request(app.server).get('/posts/999999').expect(404);
    await request(app.server).get('/no/such/route').expect(404);
    const text = (await request(app.server).get('/metrics').expect(200)).text;
    expect(sampleValue(text, 'http_requests_total', { method: 'GET', route: '/posts/:id', status: '200' })).toBe(before + 2);
    expect(sampleValue(text, 'http_requests_total', { method: 'GET', route: '/posts/:id', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(sampleValue(text, 'http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toMatch(/route="\/posts\/\d+"/);
    expect(text).not.toContain('/no/such/route');
    expect(sampleValue(text, 'http_request_duration_seconds_count', { method: 'GET', route: '/posts/:id', status: '200' })).toBe(before + 2);
    expect(sampleValue(text, 'http_request_duration_seconds_bucket', { method: 'GET', route: '/posts/:id', status: '200', le: '+Inf' })).toBe(before + 2);
    expect(sampleValue(text, 'http_request_duration_seconds_sum', { method: 'GET', route: '/posts/:id', status: '200' })).toBeGreaterThan(0);
  });

  it('counts GraphQL operations by type, "invalid" for those refused before running', async () => {
    const count = async (type: string) => metricValue(app, 'graphql_operations_total', { type });
    const [queries, mutations, invalid] = [await count('query'), await count('mutation'), await count('invalid')];
    await graphql(app, '{ post(id: 1) { id } }');
    await graphql(app, '{ post(id: 1) { id } }');
    await graphql(app, 'mutation { createPost(input: { title: "t", body: "b" }) { id } }');
    await graphql(app, '{ post(id: 1) {');
    expect(await count('query')).toBe(queries + 2);
    expect(await count('mutation')).toBe(mutations + 1);
    expect(await count('invalid')).toBe(invalid + 1);
    expect(await metricValue(app, 'http_requests_total', { method: 'POST', route: '/graphql', status: '400' })).toBeGreaterThanOrEqual(1);
  });

  it('counts the SQL statements sent', async () => {
    const before = await metricValue(app, 'db_queries_total');
    // A post no earlier test read: /posts/1 would now be answered from the response cache.
    await request(app.server).get('/posts/3').expect(200);
    const after = await metricValue(app, 'db_queries_total');
    expect(after).toBeGreaterThan(before);
    // Reading the metrics sends none. The post scheduler looks once a second in the background, so
    // one of three reads in a row may take in its look; all three do not.
    const growth: number[] = [];
    for (let read = 0, last = after; read < 3; read++) {
      const now = await metricValue(app, 'db_queries_total');
      growth.push(now - last);
      last = now;
    }
    expect(Math.min(...growth)).toBe(0);
  });
});

describe('METRICS_ENABLED=false', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('sqlite', { env: { METRICS_ENABLED: 'false' } });
  });
  afterAll(() => app?.close());

  it('turns GET /metrics off: 404', async () => {
    const response = await request(app.server).get('/metrics').expect(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.text).not.toContain('http_requests_total');
  });
});
