import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * What a cached answer read, as tags its writes drop (ResponseCache.invalidate):
 * - `post:<id>`: a post read by id (its row, its tags, its revisions);
 * - `comments:<postId>`: a post's comments, threads and counts;
 * - `posts`: every other read of posts (lists, searches, counts) and every read of tags (they count posts);
 * - `*`: anything else (a comment by id, replies): the answer is dropped by any write.
 */
export const ANY_TAG = '*';
export const POSTS_TAG = 'posts';
export const postTag = (id: number): string => `post:${id}`;
export const commentsTag = (postId: number): string => `comments:${postId}`;

const collector = new AsyncLocalStorage<Set<string>>();

/**
 * Collects the tags of what `run` reads (and of whatever it starts, through async context).
 * The cache hooks start one for a cacheable miss only: other requests record nothing and pay nothing.
 */
export function collectReadTags<R>(tags: Set<string>, run: () => R): R {
  return collector.run(tags, run);
}

/** Where data is read: records its tags on the answer being collected, if any. */
export function recordReadTags(tags: Iterable<string> | string): void {
  const collected = collector.getStore();
  if (collected === undefined) return;
  if (typeof tags === 'string') collected.add(tags);
  else for (const tag of tags) collected.add(tag);
}

/** Records one tag per id (`post:1`, `post:2`…). */
export function recordReadIds(tagOf: (id: number) => string, ids: Iterable<number>): void {
  const collected = collector.getStore();
  if (collected === undefined) return;
  for (const id of ids) collected.add(tagOf(id));
}
