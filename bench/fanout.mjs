/**
 * Subscription fan-out: many graphql-ws clients (the `graphql-ws` client over `ws`) subscribe to
 * `postCreated`; then posts are created one at a time, spaced apart, and each subscriber's
 * delivery latency is taken: the time its event arrives minus the time the write was sent.
 * Everything runs in this process, so both times come from one clock (performance.now()).
 *
 * Note: the receive time includes this process's own work on the messages that arrived just
 * before (1,000 JSON messages per event on one core), the same for every service measured.
 */
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { CREATE_POST_MUTATION, POST_CREATED_SUBSCRIPTION, log } from './shared.mjs';

const { fetch } = globalThis;

export function percentile(sorted, p) {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))];
}

/** Errors arrive as Error, GraphQL error arrays, ws ErrorEvents ({message, error}) or CloseEvents ({code, reason}). */
const describe = (error) => {
  if (error instanceof Error) return error.message;
  if (Array.isArray(error)) return error.map((entry) => entry?.message ?? String(entry)).join('; ');
  if (error && typeof error === 'object') {
    if (error.error instanceof Error) return error.error.message;
    if (typeof error.message === 'string' && error.message !== '') return error.message;
    if (typeof error.code === 'number') return `socket closed ${error.code}${error.reason ? ` ${error.reason}` : ''}`;
  }
  return String(error);
};

/** Creates a post through GraphQL (or, when the GraphQL mutation fails, through REST) and resolves when answered. */
async function createPost(baseUrl, token, title, body) {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${token}` };
  const response = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: CREATE_POST_MUTATION, variables: { input: { title, body } } }),
  });
  const text = await response.text();
  if (response.ok && !text.startsWith('{"errors"')) return;
  const rest = await fetch(`${baseUrl}/posts`, { method: 'POST', headers, body: JSON.stringify({ title, body }) });
  await rest.text();
  if (!rest.ok) throw new Error(`creating a post failed: GraphQL HTTP ${response.status}, REST HTTP ${rest.status}`);
}

/**
 * Returns `{available: false, reason}` when subscriptions cannot be set up, otherwise the
 * delivery latencies' percentiles and counts.
 */
export async function measureFanout({
  baseUrl,
  token,
  subscribers = 1000,
  events = 20,
  spacingMs = 250,
  eventTimeoutMs = 5000,
  connectBatch = 50,
  runId = String(process.pid),
}) {
  const wsUrl = `${baseUrl.replace(/^http/, 'ws')}/graphql`;
  const clients = [];
  const sentAt = new Map(); // title → send time
  const received = new Map(); // title → number of deliveries
  const latencies = [];
  const warmups = new Set();
  const liveSubscribers = new Set();
  const errors = [];
  const prefix = `fanout ${runId} `;

  const onEvent = (index, result) => {
    const now = performance.now();
    const title = result?.data?.postCreated?.title;
    if (typeof title !== 'string' || !title.startsWith(prefix)) {
      if (result?.errors) errors.push(describe(result.errors));
      return;
    }
    received.set(title, (received.get(title) ?? 0) + 1);
    if (warmups.has(title)) liveSubscribers.add(index);
    else if (sentAt.has(title)) latencies.push(now - sentAt.get(title));
  };

  const connect = (index) =>
    new Promise((resolve) => {
      let settled = false;
      const settle = (outcome) => {
        if (!settled) {
          settled = true;
          resolve(outcome);
        }
      };
      const client = createClient({
        url: wsUrl,
        webSocketImpl: WebSocket,
        lazy: true,
        retryAttempts: 0,
        keepAlive: 0,
        connectionAckWaitTimeout: 10_000,
        on: {
          connected: () => settle({ ok: true }),
          closed: (event) => settle({ ok: false, reason: describe(event) }),
          error: (error) => settle({ ok: false, reason: describe(error) }),
        },
      });
      clients.push(client);
      client.subscribe(
        { query: POST_CREATED_SUBSCRIPTION },
        {
          next: (result) => onEvent(index, result),
          error: (error) => {
            errors.push(describe(error));
            settle({ ok: false, reason: describe(error) });
          },
          complete: () => {},
        },
      );
    });

  const waitFor = async (title, expected, timeoutMs) => {
    const deadline = performance.now() + timeoutMs;
    while ((received.get(title) ?? 0) < expected && performance.now() < deadline) await sleep(5);
    return received.get(title) ?? 0;
  };

  try {
    let connected = 0;
    let lastFailure = null;
    for (let from = 0; from < subscribers; from += connectBatch) {
      const batch = [];
      for (let index = from; index < Math.min(subscribers, from + connectBatch); index++) batch.push(connect(index));
      const outcomes = await Promise.all(batch);
      for (const outcome of outcomes) {
        if (outcome.ok) connected++;
        else lastFailure = outcome.reason;
      }
      if (connected === 0) return { available: false, reason: `cannot connect to ${wsUrl}: ${lastFailure ?? 'unknown'}` };
    }

    // Warm-up events: a subscriber counts as live once it has received one (subscribing is asynchronous).
    for (let attempt = 1; attempt <= 3 && liveSubscribers.size < connected; attempt++) {
      const title = `${prefix}warm-up ${attempt}`;
      warmups.add(title);
      try {
        await createPost(baseUrl, token, title, 'Fan-out warm-up.');
      } catch (error) {
        return { available: false, reason: describe(error) };
      }
      await waitFor(title, connected, 10_000);
    }
    if (liveSubscribers.size === 0) {
      return { available: false, reason: `no postCreated event reached any of ${connected} subscribers${errors.length ? ` (${errors[0]})` : ''}` };
    }
    const live = liveSubscribers.size;
    log(`  fan-out: ${connected}/${subscribers} connected, ${live} receiving; ${events} events, ${spacingMs} ms apart`);

    const mutationMs = [];
    let missed = 0;
    for (let k = 1; k <= events; k++) {
      const title = `${prefix}event ${k}`;
      const start = performance.now();
      sentAt.set(title, start);
      await createPost(baseUrl, token, title, `Fan-out event ${k}.`);
      mutationMs.push(performance.now() - start);
      const got = await waitFor(title, live, eventTimeoutMs);
      missed += Math.max(0, live - got);
      await sleep(spacingMs);
    }
    const sorted = latencies.sort((a, b) => a - b);
    const sortedMutations = mutationMs.sort((a, b) => a - b);
    return {
      available: true,
      subscribers,
      connected,
      live,
      events,
      deliveries: sorted.length,
      expected: live * events,
      missed,
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted.length ? sorted[sorted.length - 1] : null,
      mutationP50: percentile(sortedMutations, 50),
      errors: errors.slice(0, 5),
    };
  } finally {
    await Promise.race([
      Promise.allSettled(clients.map((client) => client.dispose())),
      sleep(5000),
    ]);
    for (const client of clients) {
      try {
        client.terminate();
      } catch {
        // already closed
      }
    }
  }
}
