/**
 * A search as people type it (CONTRACT §8): words, `"phrases"` and `-excluded` words or phrases,
 * every other character taken as text. Parsed here once for both databases, so that what a
 * query means (and when it means nothing) does not depend on the database; each dialect then
 * writes it in its own syntax with every term quoted, so no input is ever an operator.
 */
export interface TextQuery {
  /** Words and phrases every match has (a phrase: its words in order). */
  required: string[];
  /** Words and phrases no match has. */
  excluded: string[];
}

/** A term is text with at least one letter or digit; anything else (`*`, `-`, `(`) is no term. */
const HAS_WORD = /[\p{L}\p{N}]/u;
/** A `"phrase"` (closed, or running to the end when its quote is not), or a run of other characters; each may start with `-`. */
const TERM = /(-?)(?:"([^"]*)"?|([^\s"]+))/gu;

/** The terms of `text`; null when it has no required term (empty, only punctuation, or only exclusions). */
export function parseTextQuery(text: string): TextQuery | null {
  const query: TextQuery = { required: [], excluded: [] };
  for (const match of text.matchAll(TERM)) {
    const term = (match[2] ?? match[3] ?? '').replace(/\s+/gu, ' ').trim();
    if (!HAS_WORD.test(term)) continue;
    (match[1] === '-' ? query.excluded : query.required).push(term);
  }
  return query.required.length > 0 ? query : null;
}

/** A term as a double-quoted string (`"` inside cannot occur: the parser splits on it). */
const quoted = (term: string) => `"${term.replace(/"/g, '')}"`;

/**
 * For PostgreSQL's `websearch_to_tsquery`: every term quoted (so `or` is a word, not the operator),
 * exclusions prefixed with `-`.
 */
export function toWebSearch(query: TextQuery): string {
  return [...query.required.map(quoted), ...query.excluded.map((term) => `-${quoted(term)}`)].join(' ');
}

/**
 * For SQLite's FTS5 MATCH: every term a string (FTS5 tokenizes it: a phrase of its words, so
 * `AND`, `NEAR(`, `*`, `:` and `^` are text), the required ones ANDed, each exclusion a NOT.
 */
export function toFts5Match(query: TextQuery): string {
  const required = `(${query.required.map(quoted).join(' AND ')})`;
  return [required, ...query.excluded.map(quoted)].join(' NOT ');
}
