import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const SETTING = 'GRAPHQL_PERSISTED_QUERIES_FILE';

/**
 * Reads an Apollo persisted query manifest —
 * `{"format": "apollo-persisted-query-manifest", "version": 1, "operations": [{id, name, type, body}]}`
 * — into a map from id to document. Every id must be the SHA-256 (hex) of its body, as Apollo's
 * tooling writes it and as clients send it in extensions.persistedQuery.sha256Hash. Anything
 * else stops start-up with a message naming the setting.
 */
export function loadPersistedQueryManifest(path: string): Map<string, string> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${SETTING}: cannot read ${path} as JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const { format, version, operations } = (manifest ?? {}) as { format?: unknown; version?: unknown; operations?: unknown };
  if (format !== 'apollo-persisted-query-manifest' || version !== 1 || !Array.isArray(operations)) {
    throw new Error(`${SETTING}: ${path} is not an Apollo persisted query manifest (format "apollo-persisted-query-manifest", version 1, operations [...])`);
  }
  const documents = new Map<string, string>();
  operations.forEach((operation: { id?: unknown; body?: unknown; name?: unknown }, index) => {
    const label = typeof operation?.name === 'string' ? `"${operation.name}"` : `#${index}`;
    if (typeof operation?.id !== 'string' || typeof operation.body !== 'string') {
      throw new Error(`${SETTING}: operation ${label} needs a string id and body`);
    }
    if (createHash('sha256').update(operation.body).digest('hex') !== operation.id) {
      throw new Error(`${SETTING}: the id of operation ${label} is not the SHA-256 of its body`);
    }
    documents.set(operation.id, operation.body);
  });
  return documents;
}
