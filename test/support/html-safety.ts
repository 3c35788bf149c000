import { parse, parseFragment } from 'parse5';
import type { DefaultTreeAdapterMap } from 'parse5';

// What CONTRACT §13 lets survive in a rendered body, written here apart from src/content/html-allowlist.ts
// so that a wrong allowlist fails the tests instead of agreeing with them. HTML is parsed by parse5 (the
// WHATWG parsing algorithm browsers run), never matched with patterns.

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

const POST_ELEMENTS: Record<string, readonly string[]> = {
  ...Object.fromEntries(
    ['p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'em', 'strong', 'del', 's', 'ins', 'sub', 'sup', 'ul', 'li', 'dl', 'dt', 'dd',
      'figure', 'figcaption', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'caption', 'span', 'div', 'kbd', 'mark', 'small', 'details', 'summary'].map((tag) => [tag, []]),
  ),
  a: ['href', 'title', 'rel'],
  img: ['src', 'srcset', 'alt', 'title', 'width', 'height', 'loading'],
  th: ['align', 'colspan', 'rowspan'],
  td: ['align', 'colspan', 'rowspan'],
  ol: ['start'],
  code: ['class'],
  abbr: ['title'],
};

const COMMENT_ELEMENTS: Record<string, readonly string[]> = {
  ...Object.fromEntries(['p', 'br', 'em', 'strong', 'del', 's', 'pre', 'blockquote', 'ul', 'li'].map((tag) => [tag, []])),
  a: ['href', 'title', 'rel'],
  ol: ['start'],
  code: ['class'],
};

export type BodyKind = 'post' | 'comment';

const isElement = (node: Node): node is Element => 'tagName' in node;

function* elementsOf(node: Node): Generator<Element> {
  if (isElement(node)) yield node;
  const children = 'childNodes' in node ? node.childNodes : [];
  for (const child of children) yield* elementsOf(child);
  // <template>'s children live in its content fragment.
  if (isElement(node) && node.tagName === 'template') yield* elementsOf((node as DefaultTreeAdapterMap['template']).content);
}

/** A URL as a browser reads it: leading C0 controls and spaces stripped, tabs and newlines removed anywhere (WHATWG URL). */
// eslint-disable-next-line no-control-regex -- the control characters are the point
const asBrowsersRead = (url: string): string => url.replace(/^[\u0000-\u0020]+/, '').replace(/[\t\n\r]/g, '');

/** The scheme a browser reads in a URL attribute, or null for a relative URL. */
export function schemeOf(url: string): string | null {
  return /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(asBrowsersRead(url))?.[1].toLowerCase() ?? null;
}

const SAFE_SCHEMES = new Set(['http', 'https', 'mailto']);
const DATA_IMAGE = /^data:image\/(png|gif|jpeg|webp)[;,]/i;

/** Why a URL attribute's value is not one CONTRACT §13 allows, or undefined when it is. */
export function urlProblem(tag: string, attribute: string, value: string): string | undefined {
  const urls = attribute === 'srcset' ? value.split(',').map((candidate) => candidate.trim().split(/\s+/)[0]).filter(Boolean) : [value];
  for (const url of urls) {
    const scheme = schemeOf(url);
    if (scheme === null || SAFE_SCHEMES.has(scheme)) continue;
    if (scheme === 'data' && tag === 'img' && attribute === 'src' && DATA_IMAGE.test(asBrowsersRead(url))) continue;
    return `${tag}[${attribute}] has a ${scheme}: URL (${JSON.stringify(value)})`;
  }
  return undefined;
}

/**
 * What in a rendered body (`bodyHtml`) is outside the allowlist: elements not named, attributes
 * not named for their element (so no `on*`, `style`, `id`), a class other than `language-*` on
 * `code`, a URL with another scheme than http(s), mailto or none (and `data:image/(png|gif|jpeg|webp)`
 * in `img src`). Empty when the fragment is safe.
 */
export function bodyHtmlProblems(html: string, kind: BodyKind): string[] {
  const allowed = kind === 'post' ? POST_ELEMENTS : COMMENT_ELEMENTS;
  const problems: string[] = [];
  for (const element of elementsOf(parseFragment(html))) {
    const tag = element.tagName;
    if (element.namespaceURI !== 'http://www.w3.org/1999/xhtml') problems.push(`<${tag}> in namespace ${element.namespaceURI}`);
    const attributes = allowed[tag];
    if (attributes === undefined) {
      problems.push(`<${tag}> is not allowed`);
      continue;
    }
    for (const { name, value } of element.attrs) {
      if (!attributes.includes(name)) problems.push(`<${tag} ${name}> is not allowed`);
      if (name === 'class' && !/^language-[^\s]+$/.test(value)) problems.push(`<${tag} class="${value}">`);
      if (['href', 'src', 'srcset'].includes(name)) {
        const problem = urlProblem(tag, name, value);
        if (problem !== undefined) problems.push(problem);
      }
    }
  }
  return problems;
}

/** The attributes `rel` of every `<a>` of a fragment, with its href. */
export function linksOf(html: string): { href: string | undefined; rel: string | undefined }[] {
  return [...elementsOf(parseFragment(html))]
    .filter((element) => element.tagName === 'a')
    .map((element) => ({ href: element.attrs.find((a) => a.name === 'href')?.value, rel: element.attrs.find((a) => a.name === 'rel')?.value }));
}

/** The tag names of a fragment's elements, in document order. */
export function tagsOf(html: string): string[] {
  return [...elementsOf(parseFragment(html))].map((element) => element.tagName);
}

const EXECUTABLE = new Set(['script', 'style', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form', 'base', 'meta', 'link', 'svg', 'math', 'template', 'noscript', 'input', 'button', 'textarea', 'select']);
const URL_ATTRIBUTES = new Set(['href', 'src', 'srcset', 'action', 'formaction', 'data', 'background', 'poster', 'xlink:href', 'lowsrc', 'dynsrc', 'ping']);

/**
 * What in a whole HTML page's `<body>` could run script: an element that executes or loads
 * (scripts but JSON-LD, styles, frames, plugins, forms, base/meta/link, SVG and MathML), an
 * event-handler or `style` attribute, a URL attribute with another scheme than http(s), mailto
 * or none. The page's own `<head>` (its style sheet, its JSON-LD) and the authors' avatars are the
 * service's, not a body's.
 */
export function pageProblems(page: string): string[] {
  const document = parse(page);
  const html = document.childNodes.find(isElement);
  const body = html?.childNodes.filter(isElement).find((element) => element.tagName === 'body');
  if (body === undefined) return ['no <body>'];
  const problems: string[] = [];
  for (const element of elementsOf(body)) {
    const tag = element.tagName;
    // The author's avatar is the service's own SVG; a body cannot make it (no class survives on an img).
    if (tag === 'img' && element.attrs.some((a) => a.name === 'class' && a.value === 'avatar')) continue;
    const type = element.attrs.find((a) => a.name === 'type')?.value;
    if (EXECUTABLE.has(tag) && !(tag === 'script' && type === 'application/ld+json')) problems.push(`<${tag}> in the page body`);
    for (const { name, value } of element.attrs) {
      if (name.startsWith('on') || name === 'style') problems.push(`<${tag} ${name}> in the page body`);
      if (URL_ATTRIBUTES.has(name)) {
        const problem = urlProblem(tag, name, value);
        if (problem !== undefined) problems.push(problem);
      }
    }
  }
  return problems;
}
