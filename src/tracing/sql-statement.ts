/**
 * What a span says of an SQL statement (OpenTelemetry database conventions): its operation
 * (`SELECT`, `INSERT`…: the main statement's, after any `WITH`) and the first table it names
 * (`db.collection.name`, unquoted, with its schema if it has one), read from the text alone. A
 * statement that names no table (`SELECT 1`, `BEGIN`) has an operation only.
 */
export interface StatementSummary {
  operation: string;
  collection?: string;
}

type Token = { kind: 'word'; text: string } | { kind: 'quoted'; text: string } | { kind: 'punct'; text: string };

/** The keywords after which a table's name comes. */
const TABLE_BEFORE = new Set(['FROM', 'JOIN', 'INTO', 'UPDATE']);
/** Words between such a keyword and the table's name (`FROM ONLY t`, `UPDATE OR IGNORE t`). */
const SKIPPED = new Set(['ONLY', 'LATERAL', 'OR', 'REPLACE', 'IGNORE', 'ABORT', 'FAIL', 'ROLLBACK']);
/** After FROM/JOIN, a word that is not a name (`FROM (SELECT …)` is a parenthesis, handled apart). */
const NOT_A_TABLE = new Set(['SELECT', 'VALUES', 'WITH']);
/** The operations that name tables (SQLite's `REPLACE INTO t` among them). */
const OPERATIONS_WITH_TABLES = new Set(['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'REPLACE', 'MERGE']);
/** A parenthesis that opens with one of these holds a statement, whose FROM names a table (`EXTRACT(EPOCH FROM t)` does not). */
const QUERY_START = new Set(['SELECT', 'WITH', 'VALUES', 'INSERT', 'UPDATE', 'DELETE']);

export function summarizeStatement(text: string): StatementSummary {
  const tokens = tokenize(text);
  const cteNames = new Set<string>();
  const at = isWord(tokens[0], 'WITH') ? skipCtes(tokens, 1, cteNames) : 0;
  const first = tokens[at];
  if (!first) return { operation: '' };
  const operation = first.text.toUpperCase();
  if (first.kind !== 'word' || !OPERATIONS_WITH_TABLES.has(operation)) return { operation };
  // The main statement's own table (`SELECT (SELECT … FROM tags) FROM posts` is about posts); when
  // it has none but a CTE's or a subquery's, the first table named in those.
  const collection = firstTable(tokens, cteNames, true) ?? firstTable(tokens, cteNames, false);
  return collection === undefined ? { operation } : { operation, collection };
}

/** The first table a FROM, JOIN, INTO or UPDATE names, outside any parenthesis (`topLevel`) or in any that holds a statement; a CTE's name is none. */
function firstTable(tokens: readonly Token[], cteNames: ReadonlySet<string>, topLevel: boolean): string | undefined {
  const queries: boolean[] = [];
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index];
    if (token.text === '(') queries.push(tokens[index + 1]?.kind === 'word' && QUERY_START.has(tokens[index + 1].text.toUpperCase()));
    else if (token.text === ')') queries.pop();
    if (token.kind !== 'word' || !TABLE_BEFORE.has(token.text.toUpperCase())) continue;
    if (queries.length > 0 && (topLevel || !queries[queries.length - 1])) continue;
    const keyword = token.text.toUpperCase();
    // `a IS [NOT] DISTINCT FROM b`
    if (keyword === 'FROM' && isWord(tokens[index - 1], 'DISTINCT') && (isWord(tokens[index - 2], 'IS') || isWord(tokens[index - 2], 'NOT'))) continue;
    let next = index + 1;
    while (tokens[next]?.kind === 'word' && SKIPPED.has(tokens[next].text.toUpperCase())) next += 1;
    const name = readName(tokens, next);
    if (!name) continue;
    if (name.kind === 'word' && NOT_A_TABLE.has(name.text.toUpperCase())) continue;
    // `FROM unnest($1)`, `JOIN generate_series(…)`: a function, not a table (after INTO a parenthesis is a column list).
    if ((keyword === 'FROM' || keyword === 'JOIN') && tokens[name.end]?.text === '(') continue;
    if (cteNames.has(name.text)) continue;
    return name.text;
  }
  return undefined;
}

/** A name at `at` (`t`, `"t"`, `s.t`, `"s"."t"`), unquoted, and the index after it; undefined when there is none. */
function readName(tokens: readonly Token[], at: number): { text: string; kind: Token['kind']; end: number } | undefined {
  const parts: string[] = [];
  let kind: Token['kind'] = 'word';
  let index = at;
  for (;;) {
    const token = tokens[index];
    if (!token || token.kind === 'punct') break;
    parts.push(token.text);
    if (token.kind === 'quoted') kind = 'quoted';
    index += 1;
    if (tokens[index]?.text !== '.') break;
    index += 1;
  }
  return parts.length === 0 ? undefined : { text: parts.join('.'), kind: parts.length > 1 ? 'quoted' : kind, end: index };
}

/** After `WITH`: `[RECURSIVE] name [(columns)] AS [[NOT] MATERIALIZED] (…), …`; returns the index of the main statement. */
function skipCtes(tokens: readonly Token[], from: number, names: Set<string>): number {
  let at = isWord(tokens[from], 'RECURSIVE') ? from + 1 : from;
  for (;;) {
    const name = readName(tokens, at);
    if (!name) return at;
    names.add(name.text);
    at = name.end;
    if (tokens[at]?.text === '(') at = closing(tokens, at) + 1;
    if (!isWord(tokens[at], 'AS')) return at;
    at += 1;
    while (isWord(tokens[at], 'NOT') || isWord(tokens[at], 'MATERIALIZED')) at += 1;
    if (tokens[at]?.text !== '(') return at;
    at = closing(tokens, at) + 1;
    if (tokens[at]?.text !== ',') return at;
    at += 1;
  }
}

/** The index of the parenthesis that closes the one at `open` (the end when none does). */
function closing(tokens: readonly Token[], open: number): number {
  let depth = 0;
  for (let index = open; index < tokens.length; index += 1) {
    if (tokens[index].text === '(') depth += 1;
    else if (tokens[index].text === ')' && --depth === 0) return index;
  }
  return tokens.length;
}

const isWord = (token: Token | undefined, word: string) => token?.kind === 'word' && token.text.toUpperCase() === word;

/** Words, quoted names (`"…"`, `` `…` ``, `[…]`) and punctuation; string literals, parameters and comments are dropped. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at];
    if (/\s/.test(char)) {
      at += 1;
    } else if (text.startsWith('--', at)) {
      const end = text.indexOf('\n', at);
      at = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', at)) {
      const end = text.indexOf('*/', at + 2);
      at = end < 0 ? text.length : end + 2;
    } else if (char === "'") {
      at = endOfQuoted(text, at, "'");
    } else if (char === '"' || char === '`' || char === '[') {
      const close = char === '[' ? ']' : char;
      const end = endOfQuoted(text, at, close);
      tokens.push({ kind: 'quoted', text: text.slice(at + 1, end - 1).replaceAll(close + close, close) });
      at = end;
    } else if (char === '$') {
      // `$1` (a parameter) or `$tag$…$tag$` (a PostgreSQL string).
      const tag = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(text.slice(at));
      if (tag) {
        const end = text.indexOf(tag[0], at + tag[0].length);
        at = end < 0 ? text.length : end + tag[0].length;
      } else {
        at += /^\$\d*/.exec(text.slice(at))![0].length || 1;
      }
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(text.slice(at))![0];
      tokens.push({ kind: 'word', text: word });
      at += word.length;
    } else if (/\d/.test(char)) {
      at += /^[\d.]+(e[+-]?\d+)?/i.exec(text.slice(at))![0].length;
    } else {
      if ('(),.;'.includes(char)) tokens.push({ kind: 'punct', text: char });
      at += 1;
    }
  }
  return tokens;
}

/** The index after a quoted run that starts at `at` (a doubled quote stays inside). */
function endOfQuoted(text: string, at: number, close: string): number {
  let index = at + 1;
  for (;;) {
    const end = text.indexOf(close, index);
    if (end < 0) return text.length;
    if (close !== ']' && text[end + 1] === close) {
      index = end + 2;
      continue;
    }
    return end + 1;
  }
}
