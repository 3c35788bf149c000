import Negotiator from 'negotiator';

export type Format = 'json' | 'hal' | 'xml' | 'html';

/** The formats every GET offers, the first being the default for no Accept header or `*\/*`. */
export const MEDIA_TYPES: Record<string, Format> = {
  'application/json': 'json',
  'application/hal+json': 'hal',
  'application/xml': 'xml',
  'text/html': 'html',
};
export const AVAILABLE_MEDIA_TYPES = Object.keys(MEDIA_TYPES);

export const CONTENT_TYPES: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  hal: 'application/hal+json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  html: 'text/html; charset=utf-8',
};

/** The format an Accept header asks for (q-values honoured by `negotiator`), or null for none of ours. */
export function negotiateFormat(accept: string | undefined): Format | null {
  if (accept === undefined || accept.trim() === '') return 'json';
  const type = new Negotiator({ headers: { accept } }).mediaType(AVAILABLE_MEDIA_TYPES);
  return type === undefined ? null : MEDIA_TYPES[type];
}
