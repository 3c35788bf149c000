import { preferredMediaType } from '../resource/media-types.js';
import { PROBLEM_CONTENT_TYPE, type ProblemDetails } from './problem-details.js';
import { PROBLEM_PAGE_CONTENT_TYPE, renderProblemPage } from './problem-page.js';
import { PROBLEM_XML_CONTENT_TYPE, renderProblemXml } from './problem-xml.js';

export type ProblemFormat = 'json' | 'xml' | 'html';

/**
 * What an error may be answered in, problem+json first so that it wins the ties Accept leaves
 * open (`*\/*`, `application/*`, no Accept): XML goes to a client that prefers it, as its GETs
 * get XML (or that accepts nothing else of these), HTML to one that prefers HTML (a browser).
 */
const ERROR_MEDIA_TYPES: [string, ProblemFormat][] = [
  ['application/problem+json', 'json'],
  ['application/json', 'json'],
  ['text/html', 'html'],
  ['application/problem+xml', 'xml'],
  ['application/xml', 'xml'],
  ['text/xml', 'xml'],
];
const OFFERED = ERROR_MEDIA_TYPES.map(([type]) => type);
const FORMATS = new Map(ERROR_MEDIA_TYPES);

/**
 * The format of an error for this Accept, q-values honoured; problem+json when Accept asks for
 * none of them (a 406 to `Accept: image/png` is JSON, one to `Accept: application/problem+xml`
 * is XML).
 */
export function problemFormat(accept: string | undefined): ProblemFormat {
  if (accept === undefined || !/html|xml/i.test(accept)) return 'json';
  const preferred = preferredMediaType(accept, OFFERED);
  return (preferred && FORMATS.get(preferred)) || 'json';
}

/** The problem in the format Accept asks for: its Content-Type and body. */
export function renderProblem(problem: ProblemDetails, accept: string | undefined): { contentType: string; body: string } {
  switch (problemFormat(accept)) {
    case 'html':
      return { contentType: PROBLEM_PAGE_CONTENT_TYPE, body: renderProblemPage(problem) };
    case 'xml':
      return { contentType: PROBLEM_XML_CONTENT_TYPE, body: renderProblemXml(problem) };
    default:
      return { contentType: PROBLEM_CONTENT_TYPE, body: JSON.stringify(problem) };
  }
}
