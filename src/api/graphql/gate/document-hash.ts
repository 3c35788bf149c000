import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The SHA-256 of a document text, remembered for the texts seen lately: clients send the same few
 * documents over and over, and a map look-up of the text costs a fraction of hashing it again.
 */
const recentHashes = new LRUCache<string, string>({ maxSize: 4 * 1024 * 1024, sizeCalculation: (_hash, text) => text.length + 64 });

export function documentHash(text: string): string {
  let hash = recentHashes.get(text);
  if (hash === undefined) {
    hash = sha256(text);
    if (text.length <= 64 * 1024) recentHashes.set(text, hash);
  }
  return hash;
}
