import request, { type Response } from 'supertest';
import { expect } from 'vitest';
import { EventRelay } from '../../src/events/event-relay.js';
import { expectNoLeaks } from './problems.js';
import type { TestApp } from './test-app.js';

/** GraphQL over HTTP against a test app, and checks of the GraphQL error shape. */

export interface GraphQLErrorBody {
  message: string;
  path?: (string | number)[];
  locations?: { line: number; column: number }[];
  extensions: { code: string; [key: string]: unknown };
}

export interface GraphQLBody {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  data?: any;
  errors?: GraphQLErrorBody[];
}

export interface GraphQLResult {
  status: number;
  body: GraphQLBody;
  response: Response;
}

export interface GraphQLRequestOptions {
  token?: string;
  operationName?: string;
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  /** Off only where the client itself sent the words the leak check looks for. */
  checkLeaks?: boolean;
}

/** POST /graphql with a JSON body; every response must be JSON with data and/or errors, and leak nothing. */
export async function graphql(
  app: TestApp,
  query: string | undefined,
  variables?: Record<string, unknown>,
  options: GraphQLRequestOptions = {},
): Promise<GraphQLResult> {
  const call = request(app.server).post('/graphql').set('content-type', 'application/json').set(options.headers ?? {});
  if (options.token) call.set('authorization', `Bearer ${options.token}`);
  const response = await call.send(
    JSON.stringify({ query, variables, operationName: options.operationName, extensions: options.extensions }),
  );
  expect(response.headers['content-type'], response.text).toMatch(/^application\/(graphql-response\+)?json/);
  const body = JSON.parse(response.text) as GraphQLBody;
  if (options.checkLeaks !== false) expectNoLeaks(response.text);
  for (const error of body.errors ?? []) {
    expect(error.extensions?.code, `every error carries a code: ${response.text}`).toEqual(expect.any(String));
    expect(error.extensions).not.toHaveProperty('stacktrace');
  }
  return { status: response.status, body, response };
}

/** The one error of a result, checked for its code and (for field errors) its path. */
export function expectError(result: GraphQLResult, code: string, path?: (string | number)[]): GraphQLErrorBody {
  const errors = result.body.errors ?? [];
  expect(errors.map((error) => error.extensions.code), JSON.stringify(result.body)).toEqual([code]);
  const [error] = errors;
  if (path) expect(error.path).toEqual(path);
  else expect(error.path).toBeUndefined();
  expect(error.message.length).toBeGreaterThan(0);
  return error;
}

/** A successful result: HTTP 200, no errors; returns data. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function expectData(result: GraphQLResult): any {
  expect(result.body.errors, JSON.stringify(result.body.errors)).toBeUndefined();
  expect(result.status).toBe(200);
  return result.body.data;
}

/**
 * Once the event relay has no work pending (a read of the log, or events handed over at a commit
 * and not yet published): what a write set off in the background is done, so counting statements
 * around it is deterministic.
 */
export async function relayQuiet(app: TestApp): Promise<void> {
  await app.app.get(EventRelay).quiet();
}

/**
 * The fewest statements (db_queries_total) one of `tries` runs of `run` sent: the app's
 * once-a-second pollers (scheduler, relay, webhooks) may add statements to a run on a busy
 * machine, never take any away, so a read that sends none shows 0 on at least one try.
 */
export async function fewestStatements(app: TestApp, run: () => Promise<unknown>, tries = 3): Promise<number> {
  let fewest = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < tries && fewest > 0; attempt++) {
    const before = await metricValue(app, 'db_queries_total');
    await run();
    fewest = Math.min(fewest, (await metricValue(app, 'db_queries_total')) - before);
  }
  return fewest;
}

/** The value of a Prometheus sample from GET /metrics (0 when absent). */
export async function metricValue(app: TestApp, name: string, labels: Record<string, string> = {}): Promise<number> {
  const response = await request(app.server).get('/metrics').expect(200);
  return sampleValue(response.text, name, labels);
}

export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const present = (match[2] ?? '').split(',');
    if (wanted.every((label) => present.includes(label))) return Number(match[3]);
  }
  return 0;
}
