/**
 * What may survive in a rendered body (CONTRACT §13, docs/publishing.md "Formatted bodies"):
 * every element, attribute and URL scheme not named here is removed by the sanitizer. No `style`,
 * no `id`, no `class` (but `language-*` on `code`), no event handler, no `target`.
 */

/** The elements of a post's `bodyHtml`: block and inline text, lists, links, images, tables. */
export const POST_TAGS: readonly string[] = [
  'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'code',
  'em', 'strong', 'del', 's', 'ins', 'sub', 'sup', 'ul', 'ol', 'li', 'dl', 'dt', 'dd',
  'a', 'img', 'figure', 'figcaption', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption',
  'span', 'div', 'abbr', 'kbd', 'mark', 'small', 'details', 'summary',
];

const CELL_ATTRIBUTES = ['align', 'colspan', 'rowspan'];
/** The values `th`/`td` `align` may have; another value removes the attribute. */
export const CELL_ALIGN: readonly (string | undefined)[] = ['left', 'center', 'right'];
/** The values `img` `loading` may have; another value removes the attribute. */
export const IMG_LOADING: readonly (string | undefined)[] = ['lazy', 'eager'];

/** The attributes each element of a post may keep (`rel` is set by the renderer, never taken as written). */
export const POST_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'title', 'rel'],
  img: ['src', 'srcset', 'sizes', 'alt', 'title', 'width', 'height', 'loading'],
  th: CELL_ATTRIBUTES,
  td: CELL_ATTRIBUTES,
  ol: ['start'],
  abbr: ['title'],
};

/** The one class a body may carry: a fenced code block's language (`<code class="language-ts">`). */
export const ALLOWED_CLASSES: Readonly<Record<string, string[]>> = { code: ['language-*'] };

/** The elements of a comment's `bodyHtml`: paragraphs, emphasis, code, quotes, lists and links. */
export const COMMENT_TAGS: readonly string[] = ['p', 'br', 'em', 'strong', 'del', 's', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a'];

/** The attributes each element of a comment may keep (`rel` again the renderer's). */
export const COMMENT_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'title', 'rel'],
  ol: ['start'],
};

/** URL schemes of `href` (and `srcset` candidates); a URL without a scheme (relative) is kept. */
export const LINK_SCHEMES: readonly string[] = ['http', 'https', 'mailto'];

/** `img src` may also be one of these inline images; never `data:image/svg+xml` (it can hold script). */
export const DATA_IMAGE = /^data:image\/(?:png|gif|jpeg|webp)[;,]/i;

/** The `rel` of a post's link to another origin than PUBLIC_BASE_URL's. */
export const EXTERNAL_REL = 'noopener noreferrer';
/** The `rel` of every link in a comment, whatever its origin. */
export const COMMENT_REL = 'nofollow ugc noopener noreferrer';

/**
 * Elements dropped with everything in them (the sanitizer keeps the text of other removed
 * elements): their content is code or markup, not text of the body.
 */
export const DROPPED_WITH_CONTENT: readonly string[] = [
  'script', 'style', 'textarea', 'option', 'noscript', 'noembed', 'noframes', 'xmp', 'iframe', 'template', 'title', 'select',
];

/** Elements whose edges separate words in the body's text (excerpt, reading time). */
export const BLOCK_TAGS: readonly string[] = [
  'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'ul', 'ol', 'li', 'dl', 'dt', 'dd',
  'figure', 'figcaption', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'caption', 'div', 'details', 'summary',
];
