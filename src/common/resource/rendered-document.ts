/**
 * A document a controller (or a renderer) has already turned into bytes — a feed, a sitemap,
 * robots.txt. The representation hooks send it with its Content-Type, a strong ETag (a digest of
 * the body), `Last-Modified` and `Link: rel="next"`, answer If-None-Match / If-Modified-Since
 * with 304, and keep it in the response cache like any other anonymous read.
 */
export class RenderedDocument {
  constructor(
    readonly body: string,
    /** With its charset: `application/xml; charset=utf-8`. */
    readonly contentType: string,
    /** When what it shows last changed; none: no Last-Modified. */
    readonly lastModified: Date | null = null,
    /** The absolute URL of the next page, when there is one. */
    readonly next: string | null = null,
  ) {}
}
