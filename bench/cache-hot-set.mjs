/**
 * The hot-set mix (issue 27): the response cache under writes. One service with its cache on;
 * 8 readers, 80% of their reads on the 10 newest of 50 posts (the rest on the other 40), half
 * REST `GET /posts/{id}`, half the GraphQL post page (the bench's post page query); one writer
 * adding comments to random posts of the 50 on a fixed timetable (the n-th at n/rate s, whatever
 * the previous one took). The hit ratio comes from the Cache-Status header of every read.
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { POST_PAGE_QUERY, mulberry32, randomInt } from './shared.mjs';

const { fetch, AbortSignal } = globalThis;

/** CACHE_STATUS.hit in src/common/cache/response-cache.ts. */
const HIT = 'blog; hit';
export const HOT_SET_RATES = [0, 1, 5, 20];
const READERS = 8;
const POSTS = 50;
const HOT = 10;
const JSON_HEADERS = { 'content-type': 'application/json' };

async function call(baseUrl, path, init = {}) {
  const response = await fetch(`${baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  const body = await response.text();
  return { status: response.status, cacheStatus: response.headers.get('cache-status'), body };
}

function reads(baseUrl, postId, graphql) {
  return graphql
    ? call(baseUrl, '/graphql', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify({ query: POST_PAGE_QUERY, variables: { id: postId } }) })
    : call(baseUrl, `/posts/${postId}`);
}

/**
 * Runs the mix at each rate (writes/s) for `durationS` seconds, after one read of every page
 * (not counted). Returns `[{ rate, hitRatio, reads, writes, errors }]`.
 */
export async function measureCacheHotSet({ baseUrl, token, durationS, seed = 1, rates = HOT_SET_RATES, log = () => {} }) {
  // The 50 newest public posts, newest first.
  const list = await call(baseUrl, `/posts?limit=${POSTS}`);
  if (list.status !== 200) throw new Error(`GET /posts answered HTTP ${list.status}`);
  const posts = JSON.parse(list.body).map((post) => post.id);
  if (posts.length < HOT + 1) throw new Error(`only ${posts.length} public posts: the hot set needs more`);
  const hot = posts.slice(0, HOT);
  const cold = posts.slice(HOT);
  const results = [];
  for (const rate of rates) {
    const random = mulberry32(seed + rate);
    for (const id of posts) for (const graphql of [false, true]) await reads(baseUrl, id, graphql);
    let hits = 0;
    let count = 0;
    let errors = 0;
    let writes = 0;
    const started = performance.now();
    const ends = started + durationS * 1000;
    const readers = Array.from({ length: READERS }, async () => {
      while (performance.now() < ends) {
        const set = random() < 0.8 ? hot : cold;
        const id = set[randomInt(random, 0, set.length - 1)];
        try {
          const response = await reads(baseUrl, id, random() < 0.5);
          if (response.status !== 200) errors += 1;
          else {
            count += 1;
            if (response.cacheStatus === HIT) hits += 1;
          }
        } catch {
          errors += 1;
        }
      }
    });
    const writer = (async () => {
      if (rate === 0) return;
      const pending = [];
      for (let n = 0; ; n += 1) {
        const at = started + (n * 1000) / rate;
        if (at >= ends) break;
        const wait = at - performance.now();
        if (wait > 0) await sleep(wait);
        const id = posts[randomInt(random, 0, posts.length - 1)];
        pending.push(
          call(baseUrl, `/posts/${id}/comments`, {
            method: 'POST',
            headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` },
            body: JSON.stringify({ body: `A comment of the hot-set mix (${rate}/s, #${n})` }),
          }).then(
            (response) => (response.status === 201 ? (writes += 1) : (errors += 1)),
            () => (errors += 1),
          ),
        );
      }
      await Promise.all(pending);
    })();
    await Promise.all([...readers, writer]);
    const hitRatio = count > 0 ? hits / count : null;
    results.push({ rate, hitRatio, reads: count, writes, errors });
    log(`  ${String(rate).padStart(2)} writes/s: hit ratio ${hitRatio === null ? 'n/a' : `${(hitRatio * 100).toFixed(1)}%`} over ${count} reads (${writes} writes, ${errors} errors)`);
  }
  return results;
}

/** The markdown table of `report.cacheHotSet`. */
export function renderCacheHotSet(rows) {
  const lines = ['', '### Response cache, hot-set mix (8 readers, 80% on the 10 newest of 50 posts, REST and GraphQL; one writer adding comments)', ''];
  lines.push('| Writes/s | Hit ratio | Reads | Writes | Errors |', '|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    lines.push(`| ${row.rate} | ${row.hitRatio === null ? 'n/a' : `${(row.hitRatio * 100).toFixed(1)}%`} | ${row.reads} | ${row.writes ?? ''} | ${row.errors ?? ''} |`);
  }
  return lines.join('\n');
}
