import { Injectable } from '@nestjs/common';
import { DomainError } from '../common/errors/domain-error.js';
import { RenderedDocument } from '../common/resource/rendered-document.js';
import { createXmlDocument, XML_BUILDER_OPTIONS, xmlText } from '../common/resource/xml.js';
import { AppConfig } from '../config/app-config.js';
import { PostFinder } from '../posts/post-finder.service.js';
import type { PostAddress } from '../posts/posts.repository.js';
import { TagsService } from '../tags/tags.service.js';
import { PublicUrls } from './public-urls.js';

const SITEMAP_NS = 'http://www.sitemaps.org/schemas/sitemap/0.9';
const XHTML_NS = 'http://www.w3.org/1999/xhtml';
const XML_TYPE = 'application/xml; charset=utf-8';

/** A translation's address, as an `xhtml:link` of a `<url>`. */
interface Alternate {
  hreflang: string;
  href: string;
}

/** One `<url>`: where, when it last changed (none: no lastmod), and its group's public translations (itself included). */
interface SitemapUrl {
  loc: string;
  lastModified: Date | null;
  alternates?: readonly Alternate[];
}

/**
 * The sitemap (sitemaps.org 0.9, CONTRACT §13): the home page (PUBLIC_BASE_URL), every public
 * post (PUBLIC_POST_URL, its updatedAt) and every tag a public post carries (`/posts?tag=`, its
 * newest public post's updatedAt), in that order, posts and tags by id. Past SITEMAP_MAX_URLS in
 * all, /sitemap.xml is an index of /sitemaps/{n} pages of at most that many each; each page reads
 * only its own rows (offset and limit, six columns of a post).
 *
 * With more than one supported locale (CONTRACT §15), each public translation is a `<url>` of its
 * own, and one whose group has more than one public post carries an `xhtml:link rel="alternate"`
 * per public post of the group, itself included (Google's hreflang sitemap format); a post alone
 * in its group carries none. Drafts and other non-public translations are never named. The
 * alternates of a page are read in one statement beside its addresses.
 */
@Injectable()
export class SitemapService {
  constructor(
    private readonly finder: PostFinder,
    private readonly tags: TagsService,
    private readonly urls: PublicUrls,
    private readonly config: AppConfig,
  ) {
    this.translated = config.supportedLocales.length > 1;
  }

  /** Translations exist only with more than one supported locale: a single-locale sitemap has no alternates (nor their namespace). */
  private readonly translated: boolean;

  /** GET /sitemap.xml: every URL, or past SITEMAP_MAX_URLS the index of the pages. */
  async sitemap(): Promise<RenderedDocument> {
    const pages = await this.pageCount();
    if (pages === 1) return this.urlset(await this.urlsOfPage(1));
    const document = createXmlDocument(XML_BUILDER_OPTIONS);
    const index = document.ele(SITEMAP_NS, 'sitemapindex');
    for (let page = 1; page <= pages; page++) index.ele('sitemap').ele('loc').txt(xmlText(this.urls.absolute(`/sitemaps/${page}`)));
    return new RenderedDocument(document.end({ prettyPrint: false }), XML_TYPE);
  }

  /** GET /sitemaps/{n}: a page of the index (while there is none, page 1 is the whole sitemap); 404 past the last page. */
  async page(page: number): Promise<RenderedDocument> {
    const pages = await this.pageCount();
    if (page > pages) throw DomainError.notFound('Sitemap page', page);
    return this.urlset(await this.urlsOfPage(page));
  }

  private async pageCount(): Promise<number> {
    const [posts, tags] = await Promise.all([this.finder.count({}), this.tags.countCarriedByPublic()]);
    return Math.max(1, Math.ceil((1 + posts + tags) / this.config.sitemapMaxUrls));
  }

  /** The URLs of page `page` (from 1) of the whole list: the home page, then the posts, then the tags. */
  private async urlsOfPage(page: number): Promise<SitemapUrl[]> {
    const max = this.config.sitemapMaxUrls;
    const urls: SitemapUrl[] = [];
    let start = (page - 1) * max;
    if (start === 0) urls.push({ loc: `${this.urls.base}/`, lastModified: null });
    else start -= 1;
    const postCount = await this.finder.count({});
    if (urls.length < max && start < postCount) {
      const limit = max - urls.length;
      const [posts, groups] = await Promise.all([
        this.finder.publicAddresses(start, limit),
        this.translated ? this.finder.publicTranslationsOfPage(start, limit) : new Map<number, PostAddress[]>(),
      ]);
      for (const post of posts) {
        const members = groups.get(post.groupId);
        const alternates = members?.map((member) => ({ hreflang: member.locale, href: this.urls.post(member) }));
        urls.push({ loc: this.urls.post(post), lastModified: post.updatedAt, ...(alternates ? { alternates } : {}) });
      }
    }
    if (urls.length < max) {
      const tagStart = Math.max(0, start - postCount);
      for (const tag of await this.tags.carriedByPublic(tagStart, max - urls.length)) {
        urls.push({ loc: this.urls.absolute(`/posts?tag=${encodeURIComponent(tag.slug)}`), lastModified: tag.lastModified });
      }
    }
    return urls;
  }

  private urlset(urls: readonly SitemapUrl[]): RenderedDocument {
    const document = createXmlDocument(XML_BUILDER_OPTIONS);
    const set = document.ele(SITEMAP_NS, 'urlset');
    if (this.translated) set.att('http://www.w3.org/2000/xmlns/', 'xmlns:xhtml', XHTML_NS);
    let newest: Date | null = null;
    for (const { loc, lastModified, alternates } of urls) {
      const url = set.ele('url');
      url.ele('loc').txt(xmlText(loc));
      if (lastModified) {
        url.ele('lastmod').txt(lastModified.toISOString());
        if (newest === null || lastModified > newest) newest = lastModified;
      }
      for (const { hreflang, href } of alternates ?? []) url.ele(XHTML_NS, 'xhtml:link', { rel: 'alternate', hreflang, href: xmlText(href) });
    }
    return new RenderedDocument(document.end({ prettyPrint: false }), XML_TYPE, newest);
  }

  /** GET /robots.txt: every path allowed, and where the sitemap is. */
  robots(): RenderedDocument {
    return new RenderedDocument(`User-agent: *\nAllow: /\nSitemap: ${this.urls.absolute('/sitemap.xml')}\n`, 'text/plain; charset=utf-8');
  }
}
