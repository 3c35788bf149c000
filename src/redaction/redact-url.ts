import { GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import { LRUCache } from 'lru-cache';

// `preview`: a preview link's token opens a draft to whoever holds it (CONTRACT §13).
const SECRET_PARAMETER = /pass|token|secret|key|auth|credential|code|session|signature|preview/i;
/** GraphQL-over-HTTP's JSON parameters of a GET: their values are the client's data, never logged. */
const DATA_PARAMETER = /^(variables|extensions)$/i;
const DOCUMENT_PARAMETER = /^query$/i;
// A JSON member named like a secret, with its string value: `"token":"…"`.
const SECRET_MEMBER = /((?:pass|token|secret|key|credential)\w*"?\s*:\s*)"(?:[^"\\]|\\.)*"/gi;
// JWTs, API keys and Bearer values, wherever they appear in a URL.
const SECRET_VALUE = /(eyJ[\w-]*\.[\w-]*\.[\w-]*|blog_[\w-]+|bearer(%20|\+|\s)+[^&]+)/gi;
const REDACTED = '[REDACTED]';

/**
 * The URL as logged. Values of query parameters whose names say they carry a secret (password,
 * token, api_key, …) and GraphQL's `variables` and `extensions` are replaced by `[REDACTED]`; a
 * GraphQL `query` document is kept with every string literal (block strings too) replaced and its
 * comments dropped, or replaced whole if it does not lex; anything that looks like a credential
 * goes too.
 */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  const redacted =
    query < 0
      ? url
      : url.slice(0, query + 1) +
        url
          .slice(query + 1)
          .split('&')
          .map((pair) => {
            const name = pair.split('=', 1)[0];
            if (!pair.includes('=')) return pair;
            const decoded = decodeComponent(name) ?? name;
            if (SECRET_PARAMETER.test(decoded) || DATA_PARAMETER.test(decoded)) return `${name}=${REDACTED}`;
            if (DOCUMENT_PARAMETER.test(decoded)) return `${name}=${redactDocumentParameter(pair.slice(name.length + 1))}`;
            return redactMembers(pair, name);
          })
          .join('&');
  return redacted.replace(SECRET_VALUE, REDACTED);
}

function decodeComponent(component: string): string | undefined {
  try {
    return decodeURIComponent(component.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/** A parameter whose value (JSON, say) holds a secret-named member: that member's value redacted. */
function redactMembers(pair: string, name: string): string {
  const value = decodeComponent(pair.slice(name.length + 1));
  if (value === undefined) return pair;
  const redacted = value.replace(SECRET_MEMBER, `$1"${REDACTED}"`);
  return redacted === value ? pair : `${name}=${encodeURIComponent(redacted)}`;
}

/** Documents seen lately, as logged: clients send the same few over and over. */
const recentDocuments = new LRUCache<string, string>({ maxSize: 1024 * 1024, sizeCalculation: (logged, raw) => raw.length + logged.length });

function redactDocumentParameter(raw: string): string {
  let logged = recentDocuments.get(raw);
  if (logged === undefined) {
    const document = decodeComponent(raw);
    const safe = document === undefined ? undefined : redactDocument(document);
    logged = safe === undefined ? REDACTED : encodeURIComponent(safe);
    recentDocuments.set(raw, logged);
  }
  return logged;
}

const WORD_TOKENS = new Set<string>([TokenKind.NAME, TokenKind.INT, TokenKind.FLOAT, TokenKind.STRING, TokenKind.BLOCK_STRING]);
/** Longer than any GET URL a server accepts: not worth lexing. */
const MAX_DOCUMENT_LENGTH = 64 * 1024;

/**
 * A GraphQL document as graphql-js's lexer reads it, each string literal and block string
 * replaced by `"[REDACTED]"`, without comments or insignificant whitespace (as
 * `stripIgnoredCharacters` writes it). Undefined when it does not lex (an unterminated string, a
 * character GraphQL does not allow): then nothing of it can be told apart safely. It need not parse.
 */
export function redactDocument(document: string): string | undefined {
  if (document.length > MAX_DOCUMENT_LENGTH) return undefined;
  const lexer = new Lexer(new Source(document));
  let logged = '';
  let afterWord = false;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      const word = WORD_TOKENS.has(token.kind);
      if (afterWord && (word || token.kind === TokenKind.SPREAD)) logged += ' ';
      logged += token.kind === TokenKind.STRING || token.kind === TokenKind.BLOCK_STRING ? `"${REDACTED}"` : document.slice(token.start, token.end);
      afterWord = word;
    }
  } catch (error) {
    if (error instanceof GraphQLError) return undefined;
    throw error;
  }
  return logged;
}
