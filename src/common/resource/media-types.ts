import Negotiator from 'negotiator';

export type Format = 'json' | 'hal' | 'xml' | 'html' | 'ndjson' | FeedFormat;

/** The syndication formats (CONTRACT §13): Atom 1.0, RSS 2.0, JSON Feed 1.1. */
export type FeedFormat = 'atom' | 'rss' | 'jsonfeed';

/** A media type the resource API serves: the format it renders and the Content-Type it answers with. */
export interface Representation {
  format: Format;
  contentType: string;
}

const representation = (format: Format, type: string): Representation => ({ format, contentType: `${type}; charset=utf-8` });

/**
 * The media types every GET offers, the first being the default for no Accept header or `*\/*`.
 * `text/xml` is the older name of the same XML (RFC 7303 treats the two alike); a client that
 * asks for it gets the XML under the name it asked for.
 */
export const MEDIA_TYPES: Record<string, Representation> = {
  'application/json': representation('json', 'application/json'),
  'application/hal+json': representation('hal', 'application/hal+json'),
  'application/xml': representation('xml', 'application/xml'),
  'text/html': representation('html', 'text/html'),
  'text/xml': representation('xml', 'text/xml'),
};
export const AVAILABLE_MEDIA_TYPES = Object.keys(MEDIA_TYPES);

/** The feed types, Atom first: the default of GET /feed. Only routes whose config asks for them (`feeds`) offer them. */
export const FEED_MEDIA_TYPES: Record<string, Representation> = {
  'application/atom+xml': representation('atom', 'application/atom+xml'),
  'application/rss+xml': representation('rss', 'application/rss+xml'),
  'application/feed+json': representation('jsonfeed', 'application/feed+json'),
};

/**
 * Newline-delimited JSON (one item a line), which a list route that streams its whole result
 * offers beside the resource types (`streams`): an export, read by a SIEM line by line.
 */
export const NDJSON_MEDIA_TYPE = 'application/x-ndjson';
export const NDJSON = representation('ndjson', NDJSON_MEDIA_TYPE);

/** Which types a route offers: the resource types (the default), those and the feed types (`also`), or the feed types alone (`only`). */
export type FeedOffer = 'also' | 'only' | undefined;

/** The media types a route with this offer serves, its default first; with `streams`, NDJSON too. */
export function availableMediaTypes(feeds: FeedOffer, streams = false): string[] {
  if (feeds === 'only') return Object.keys(FEED_MEDIA_TYPES);
  if (feeds === 'also') return [...AVAILABLE_MEDIA_TYPES, ...Object.keys(FEED_MEDIA_TYPES)];
  return streams ? [...AVAILABLE_MEDIA_TYPES, NDJSON_MEDIA_TYPE] : AVAILABLE_MEDIA_TYPES;
}

/** Whether a representation is one of the feeds. */
export const isFeed = (representation: Representation | null): representation is Representation & { format: FeedFormat } =>
  representation !== null && (representation.format === 'atom' || representation.format === 'rss' || representation.format === 'jsonfeed');

/** JSON: what is answered when no Accept header picks anything else. */
export const DEFAULT_REPRESENTATION = MEDIA_TYPES['application/json'];

/**
 * The representation an Accept header asks for (q-values honoured by `negotiator`), or null for
 * none of ours. Media-type parameters other than `q` (`charset=utf-8`, `profile=…`, `level=1`)
 * are ignored: negotiator would otherwise require each to be present on the offered type.
 */
export function negotiateRepresentation(accept: string | undefined, feeds?: FeedOffer, streams = false): Representation | null {
  const offered = availableMediaTypes(feeds, streams);
  if (accept === undefined || accept.trim() === '') return representationOf(offered[0]);
  const type = new Negotiator({ headers: { accept: withoutParameters(accept) } }).mediaType(offered);
  return type === undefined ? null : representationOf(type);
}

const representationOf = (type: string): Representation => MEDIA_TYPES[type] ?? FEED_MEDIA_TYPES[type] ?? NDJSON;

/** The media type among `offered` that an Accept header prefers (ties go to the first offered), parameters ignored. */
export function preferredMediaType(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (accept === undefined || accept.trim() === '') return offered[0];
  return new Negotiator({ headers: { accept: withoutParameters(accept) } }).mediaType([...offered]);
}

/** The Accept header with every parameter but `q` dropped: `text/html; level=1; q=0.5` → `text/html;q=0.5`. */
export function withoutParameters(accept: string): string {
  if (!accept.includes(';')) return accept;
  return splitOutsideQuotes(accept, ',')
    .map((range) => {
      const [type, ...parameters] = splitOutsideQuotes(range, ';').map((part) => part.trim());
      const q = parameters.find((parameter) => /^q\s*=/i.test(parameter));
      return q === undefined ? type : `${type};${q.replace(/\s+/g, '')}`;
    })
    .join(',');
}

/** Splits on `separator` except inside quoted strings (a profile URI may hold commas or semicolons). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted && char === '\\') index++;
    else if (char === '"') quoted = !quoted;
    else if (!quoted && char === separator) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
