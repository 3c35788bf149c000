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
/** A word of a term: a run of letters and digits, as both databases' parsers split text (near enough to count). */
const WORD = /[\p{L}\p{N}]+/gu;

/**
 * The terms of `text`, normalized: each word or phrase once (compared by its words, case
 * folded: `the The the,` is one), the words to find first, then the exclusions, and no more
 * than `maxWords` words in all (a phrase counts its words; the first ones are kept, a phrase
 * is cut at the bound). What a search costs grows with its terms (each one is looked up and
 * ranked, and SQLite's snippet weighs every term against every token), so one `q` of 200
 * characters is at most `maxWords` lookups, however it repeats itself. Null when it has no
 * required term (empty, only punctuation, or only exclusions).
 */
export function parseTextQuery(text: string, maxWords: number): TextQuery | null {
  const given: TextQuery = { required: [], excluded: [] };
  const seen = new Set<string>();
  for (const match of text.matchAll(TERM)) {
    const term = (match[2] ?? match[3] ?? '').replace(/\s+/gu, ' ').trim();
    if (!HAS_WORD.test(term)) continue;
    const excluded = match[1] === '-';
    const key = `${excluded ? '-' : '+'}${(term.match(WORD) ?? []).join(' ').toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    (excluded ? given.excluded : given.required).push(term);
  }
  if (given.required.length === 0) return null;
  let left = maxWords;
  const bounded = (terms: string[]) => {
    const kept: string[] = [];
    for (const term of terms) {
      if (left === 0) break;
      const words = [...term.matchAll(WORD)];
      const cut = words.length <= left ? term : term.slice(0, words[left - 1].index + words[left - 1][0].length);
      left -= Math.min(words.length, left);
      kept.push(cut);
    }
    return kept;
  };
  return { required: bounded(given.required), excluded: bounded(given.excluded) };
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
