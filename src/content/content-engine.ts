import MarkdownIt, { type MarkdownIt as Markdown } from 'markdown-it';
import sanitizeHtml from 'sanitize-html';
import type { PublicUrls } from '../publication/public-urls.js';
import type { BodyFormat } from './body-format.js';
import {
  ALLOWED_CLASSES, BLOCK_TAGS, CELL_ALIGN, COMMENT_ATTRIBUTES, COMMENT_REL, COMMENT_TAGS, DATA_IMAGE, DROPPED_WITH_CONTENT, EXTERNAL_REL,
  IMG_LOADING, LINK_SCHEMES, POST_ATTRIBUTES, POST_TAGS,
} from './html-allowlist.js';
import { derivedExcerpt, plainTextToHtml, readingTimeMinutes } from './plain-text.js';

/** A post's body as it is stored beside its source, rendered once on write. */
export interface RenderedBody {
  bodyHtml: string;
  /** The body's text without markup (for the derived excerpt and the reading time). */
  text: string;
  readingTimeMinutes: number;
}

/** What the renderer writes of a media item a body shows (CONTRACT §13/§14): its size, alt and variants. */
export interface BodyMedia {
  width: number;
  height: number;
  alt: string | null;
  /** Narrowest first. */
  variants: readonly { href: string; width: number }[];
}

/** The media items a body may show with their facts, by id; an id not here is left as written. */
export type BodyMediaLookup = (id: number) => BodyMedia | undefined;

/** The `sizes` of a body's image: the width of the column, at most the image's own. */
const BODY_IMAGE_SIZES = (width: number): string => `(max-width: ${width}px) 100vw, ${width}px`;

/**
 * GFM table alignment as the allowlist's `align` attribute: markdown-it writes it as
 * `style="text-align:…"`, and no `style` survives the sanitizer.
 */
const alignCells = (md: Markdown): void => {
  md.core.ruler.push('align_cells', (state) => {
    const cells = state.tokens.filter((token) => token.type === 'th_open' || token.type === 'td_open');
    for (const cell of cells) {
      const align = /^text-align:(left|center|right)$/.exec(String(cell.attrGet('style') ?? ''))?.[1];
      cell.attrs = (cell.attrs ?? []).filter(([name]) => name !== 'style');
      if (align !== undefined) cell.attrSet('align', align);
    }
  });
};

const WWW_TAIL = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+(?::\d{1,5})?(?:[/?#][^\s<>]*)?/i;

/**
 * GFM's extended autolinks: besides `http(s)://…` and e-mail addresses (linkify-it's own), a
 * `www.` host is a link (to `http://`), its trailing punctuation not part of it. Bare host names
 * (`example.com`, `README.md`) stay text.
 */
const wwwAutolinks = (md: Markdown): void => {
  md.linkify.add('www.', {
    validate: (text, pos) => WWW_TAIL.exec(text.slice(pos))?.[0].replace(/[?!.,:;*_~'")]+$/, '').length ?? 0,
    normalize: (match) => {
      match.url = `http://${match.url}`;
    },
  });
};

/** Posts: CommonMark with GFM tables, strikethrough and autolinks; raw HTML passes on to the sanitizer. */
const POST_MARKDOWN = new MarkdownIt('default', { html: true, linkify: true }).use(alignCells).use(wwwAutolinks);

/** Comments: no headings, images, tables, rules or raw HTML (it is shown as text). */
const COMMENT_MARKDOWN = new MarkdownIt('default', { html: false, linkify: true })
  .disable(['heading', 'lheading', 'image', 'table', 'hr'])
  .use(wwwAutolinks);

/** The characters browsers drop from a URL before they read its scheme, and comments (as the sanitizer does). */
// eslint-disable-next-line no-control-regex -- the control characters are the point
const cleanUrl = (url: string): string => url.replace(/[\u0000-\u0020]+/g, '').replace(/<!--[\s\S]*?-->/g, '');

const BLOCK_EDGE = new RegExp(`</?(?:${BLOCK_TAGS.join('|')})\\b[^>]*>`, 'gi');
/** The escapes sanitize-html writes (it decodes every entity it reads and escapes only these). */
const SANITIZER_ESCAPES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&amp;': '&' };

/**
 * The text of sanitized HTML, without markup and with entities decoded; block edges become
 * spaces so that words of adjacent paragraphs or cells do not run together.
 */
export function textOfHtml(safeHtml: string): string {
  const text = sanitizeHtml(safeHtml.replace(BLOCK_EDGE, ' $&'), { allowedTags: [], allowedAttributes: {} });
  return text.replace(/&(?:lt|gt|quot|amp);/g, (escape) => SANITIZER_ESCAPES[escape]);
}

/** The tag with the attributes marked `true` removed (an attribute not there stays away). */
function withoutInvalid(tagName: string, attribs: sanitizeHtml.Attributes, invalid: Record<string, boolean>): sanitizeHtml.Tag {
  const kept = { ...attribs };
  for (const [name, drop] of Object.entries(invalid)) if (drop) delete kept[name];
  return { tagName, attribs: kept };
}

/** Whether a URL is one a body may link to: http(s), mailto, or no scheme (relative). */
function isSafeLink(url: string): boolean {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(cleanUrl(url))?.[1].toLowerCase();
  return scheme === undefined || LINK_SCHEMES.includes(scheme);
}

/**
 * An `<a>` with the renderer's `rel` for its href (the author's is never kept) and without `target`;
 * an href of another scheme is removed here already, so that no `rel` is left on what is no link.
 */
function link(tagName: string, { rel: _rel, href, ...attribs }: sanitizeHtml.Attributes, relOf: (href: string) => string | undefined): sanitizeHtml.Tag {
  if (href === undefined || !isSafeLink(href)) return { tagName, attribs };
  const rel = relOf(href);
  return { tagName, attribs: rel === undefined ? { href, ...attribs } : { href, ...attribs, rel } };
}

/** A body's image of a media item: its file, its variants as srcset (the original last), its size and alt. */
function mediaImage(tagName: string, { src: _src, srcset: _srcset, sizes: _sizes, width: _width, height: _height, alt, ...attribs }: sanitizeHtml.Attributes, id: number, media: BodyMedia): sanitizeHtml.Tag {
  const file = `/media/${id}/file`;
  const candidates = [...media.variants.filter((variant) => variant.width < media.width).map((variant) => `${variant.href} ${variant.width}w`), `${file} ${media.width}w`];
  const kept = { ...attribs };
  if (!IMG_LOADING.includes(kept.loading)) delete kept.loading;
  return {
    tagName,
    attribs: {
      src: file,
      srcset: candidates.join(', '),
      sizes: BODY_IMAGE_SIZES(media.width),
      width: String(media.width),
      height: String(media.height),
      alt: alt !== undefined && alt.trim() !== '' ? alt : (media.alt ?? ''),
      ...kept,
    },
  };
}

const common: sanitizeHtml.IOptions = {
  allowedSchemes: [...LINK_SCHEMES],
  allowedSchemesAppliedToAttributes: ['href', 'src'],
  allowProtocolRelative: true,
  disallowedTagsMode: 'discard',
  nonTextTags: [...DROPPED_WITH_CONTENT],
  parseStyleAttributes: false,
};

/**
 * Renders bodies to safe HTML (CONTRACT §13): plain text is escaped; Markdown goes through
 * markdown-it, then, as HTML does, through sanitize-html with the allowlist of html-allowlist.ts.
 * Links to other origins than PUBLIC_BASE_URL's get `rel="noopener noreferrer"`; every link of a
 * comment `rel="nofollow ugc noopener noreferrer"`. Synchronous; loaded by ContentRenderer on the
 * first write that renders (this module is what pulls in markdown-it and sanitize-html).
 */
export class ContentEngine {
  private readonly postOptions: sanitizeHtml.IOptions;
  private readonly commentOptions: sanitizeHtml.IOptions;
  /** The media id an image source names (`/media/{id}`, `/media/{id}/file`, or either under PUBLIC_BASE_URL). */
  private readonly mediaIdOf: (src: string) => number | undefined;
  /** The media of the body being rendered now (rendering is synchronous: one body at a time). */
  private bodyMedia: BodyMediaLookup | undefined;
  private seenMedia: Set<number> | undefined;

  constructor(urls: PublicUrls) {
    const origin = urls.origin;
    const isExternal = (href: string): boolean => {
      try {
        return new URL(cleanUrl(href), `${origin}/`).origin !== origin;
      } catch {
        return true;
      }
    };
    this.mediaIdOf = (src: string): number | undefined => {
      const url = cleanUrl(src);
      const path = url.startsWith(`${urls.base}/`) ? url.slice(urls.base.length) : url;
      const id = /^\/media\/([1-9][0-9]{0,9})(?:\/file)?$/.exec(path)?.[1];
      return id === undefined || Number(id) > 2147483647 ? undefined : Number(id);
    };
    this.postOptions = {
      ...common,
      allowedTags: [...POST_TAGS],
      allowedAttributes: POST_ATTRIBUTES as sanitizeHtml.IOptions['allowedAttributes'],
      allowedClasses: ALLOWED_CLASSES,
      allowedSchemesByTag: { img: [...LINK_SCHEMES.filter((scheme) => scheme !== 'mailto'), 'data'] },
      transformTags: {
        a: (tagName, attribs) => link(tagName, attribs, (href) => (isExternal(href) ? EXTERNAL_REL : undefined)),
        // The sanitizer lets `data:` through for img as a scheme; only raster image types may stay.
        img: (tagName, attribs) => {
          const src = attribs.src === undefined ? undefined : cleanUrl(attribs.src);
          const mediaId = src === undefined ? undefined : this.mediaIdOf(src);
          if (mediaId !== undefined) this.seenMedia?.add(mediaId);
          const media = mediaId === undefined ? undefined : this.bodyMedia?.(mediaId);
          if (mediaId !== undefined && media !== undefined) return mediaImage(tagName, attribs, mediaId, media);
          return withoutInvalid(tagName, attribs, {
            src: src !== undefined && /^data:/i.test(src) && !DATA_IMAGE.test(src),
            loading: !IMG_LOADING.includes(attribs.loading),
          });
        },
        th: (tagName, attribs) => withoutInvalid(tagName, attribs, { align: !CELL_ALIGN.includes(attribs.align) }),
        td: (tagName, attribs) => withoutInvalid(tagName, attribs, { align: !CELL_ALIGN.includes(attribs.align) }),
      },
    };
    this.commentOptions = {
      ...common,
      allowedTags: [...COMMENT_TAGS],
      allowedAttributes: COMMENT_ATTRIBUTES as sanitizeHtml.IOptions['allowedAttributes'],
      allowedClasses: ALLOWED_CLASSES,
      transformTags: {
        a: (tagName, attribs) => link(tagName, attribs, () => COMMENT_REL),
      },
    };
  }

  /**
   * A post's body as safe HTML. An image whose source is a media item `media` knows is written
   * with the item's file as src, its variants as srcset, its size, and the author's alt (else the
   * item's); other images stay as written.
   */
  renderPost(body: string, format: BodyFormat, media?: BodyMediaLookup): RenderedBody {
    if (format !== 'markdown' && format !== 'html') return { bodyHtml: plainTextToHtml(body), text: body, readingTimeMinutes: readingTimeMinutes(body) };
    const html = format === 'markdown' ? POST_MARKDOWN.render(body) : body;
    const bodyHtml = this.sanitizePost(html, media, undefined);
    const text = textOfHtml(bodyHtml);
    return { bodyHtml, text, readingTimeMinutes: readingTimeMinutes(text) };
  }

  /** The ids of the media items the body shows as images (those that survive the sanitizer), ascending. */
  mediaIdsOf(body: string, format: BodyFormat): number[] {
    if (format !== 'markdown' && format !== 'html') return [];
    const seen = new Set<number>();
    this.sanitizePost(format === 'markdown' ? POST_MARKDOWN.render(body) : body, undefined, seen);
    return [...seen].sort((a, b) => a - b);
  }

  private sanitizePost(html: string, media: BodyMediaLookup | undefined, seen: Set<number> | undefined): string {
    this.bodyMedia = media;
    this.seenMedia = seen;
    try {
      return sanitizeHtml(html, this.postOptions).trim();
    } finally {
      this.bodyMedia = undefined;
      this.seenMedia = undefined;
    }
  }

  /** The excerpt: the one given, else derived from the rendered text. */
  excerptOf(rendered: RenderedBody): string {
    return derivedExcerpt(rendered.text);
  }

  /** A comment as Markdown without headings, images or raw HTML, sanitized by the comments' allowlist. */
  renderComment(body: string): string {
    return sanitizeHtml(COMMENT_MARKDOWN.render(body), this.commentOptions).trim();
  }
}
