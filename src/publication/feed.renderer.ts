import { Injectable } from '@nestjs/common';
import type { FeedFormat } from '../common/resource/media-types.js';
import { RenderedDocument } from '../common/resource/rendered-document.js';
import type { ResourceList } from '../common/resource/resource.js';
import { createXmlDocument, XML_BUILDER_OPTIONS, xmlText } from '../common/resource/xml.js';
import type { Post } from '../posts/post.entity.js';
import { UsersService } from '../users/users.service.js';
import { PublicUrls } from './public-urls.js';

const ATOM_NS = 'http://www.w3.org/2005/Atom';
const CONTENT_NS = 'http://purl.org/rss/1.0/modules/content/';
const DC_NS = 'http://purl.org/dc/elements/1.1/';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const FEED_TITLE = 'Blog';
const FEED_DESCRIPTION = 'The newest posts';
/** What an empty feed says it was updated: a fixed time, so its ETag and Last-Modified stay put. */
const NEVER = new Date(0);

const CONTENT_TYPES: Record<FeedFormat, string> = {
  atom: 'application/atom+xml; charset=utf-8',
  rss: 'application/rss+xml; charset=utf-8',
  jsonfeed: 'application/feed+json; charset=utf-8',
};

/**
 * What XML 1.0 cannot carry (C0 controls but tab, newline and return; U+FFFE, U+FFFF; lone
 * surrogates): dropped from feed text, so a hostile title never makes the document invalid.
 */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text for an XML feed: what XML cannot carry dropped, and every `&` escaped for xmlbuilder2 (see xmlText). */
export const feedText = (text: string): string => xmlText(text.replace(NOT_XML, ''));

/** One entry as every format shows it. */
interface FeedEntry {
  id: string;
  title: string;
  link: string;
  published: Date;
  updated: Date;
  author: string;
  summary: string;
  content: string;
  categories: readonly string[];
}

/** The feed around the entries. */
interface FeedHead {
  id: string;
  self: string;
  home: string;
  next: string | null;
  updated: Date;
  /** The language of the list (a BCP 47 tag); none for a list of every translation. */
  language?: string;
}

/**
 * The one feed renderer (CONTRACT §13): a page of posts — from GET /feed, GET /posts or GET
 * /users/{id}/posts — as Atom 1.0 (RFC 4287), RSS 2.0 or JSON Feed 1.1, with absolute links
 * (PUBLIC_BASE_URL, PUBLIC_POST_URL) and RFC 5005 `next` links. The `feed` package was not used:
 * it writes every title and summary as HTML in CDATA (a plain-text title with `<` would read as
 * markup) and has no `next` link; xmlbuilder2 (the XML representation's serializer) writes these.
 */
@Injectable()
export class FeedRenderer {
  constructor(
    private readonly users: UsersService,
    private readonly urls: PublicUrls,
  ) {}

  /**
   * `list`: a list of posts (its sources the Post entities, its nextHref the next page's path);
   * `path`: the path and query asked for; `language`: the list's locale (Atom `xml:lang`, RSS
   * `<language>`, JSON Feed `language`), left out when undefined (a list of every translation).
   */
  async render(format: FeedFormat, list: ResourceList, path: string, language?: string): Promise<RenderedDocument> {
    const posts = list.sources as readonly Post[];
    const names = await this.users.namesOf(posts.map((post) => post.authorId));
    const entries = posts.map((post): FeedEntry => ({
      id: this.entryId(post),
      title: post.title,
      link: this.urls.post(post),
      published: post.publishedAt ?? post.createdAt,
      updated: post.updatedAt,
      author: names.get(post.authorId)?.name ?? 'Unknown',
      summary: post.excerpt,
      content: post.bodyHtml,
      categories: post.tags ?? [],
    }));
    const updated = entries.reduce((newest, entry) => (entry.updated > newest ? entry.updated : newest), NEVER);
    const head: FeedHead = {
      id: this.urls.absolute(withoutCursor(path)),
      self: this.urls.absolute(path),
      home: `${this.urls.base}/`,
      next: list.nextHref === null ? null : this.urls.absolute(list.nextHref),
      updated,
      ...(language === undefined ? {} : { language }),
    };
    const body = format === 'atom' ? atom(head, entries) : format === 'rss' ? rss(head, entries) : jsonFeed(head, entries);
    return new RenderedDocument(body, CONTENT_TYPES[format], updated, head.next);
  }

  /**
   * A post's id in every feed: an RFC 4151 tag URI of PUBLIC_BASE_URL's host, the day it was
   * written and its id — the same across edits, slug changes and a new PUBLIC_POST_URL.
   */
  entryId(post: Pick<Post, 'id' | 'createdAt'>): string {
    return `tag:${new URL(this.urls.base).hostname},${post.createdAt.toISOString().slice(0, 10)}:post:${post.id}`;
  }
}

/** The path and query without `cursor`: every page of a feed shares its id. */
function withoutCursor(path: string): string {
  const [pathname, query = ''] = path.split('?', 2);
  const params = new URLSearchParams(query);
  params.delete('cursor');
  const rest = params.toString();
  return rest === '' ? pathname : `${pathname}?${rest}`;
}

function atom(head: FeedHead, entries: readonly FeedEntry[]): string {
  const document = createXmlDocument(XML_BUILDER_OPTIONS);
  const feed = document.ele(ATOM_NS, 'feed');
  if (head.language !== undefined) feed.att(XML_NS, 'xml:lang', head.language);
  feed.ele('id').txt(feedText(head.id));
  feed.ele('title', { type: 'text' }).txt(FEED_TITLE);
  feed.ele('subtitle', { type: 'text' }).txt(FEED_DESCRIPTION);
  feed.ele('updated').txt(head.updated.toISOString());
  feed.ele('link', { rel: 'self', type: 'application/atom+xml', href: feedText(head.self) });
  feed.ele('link', { rel: 'alternate', type: 'text/html', href: feedText(head.home) });
  if (head.next) feed.ele('link', { rel: 'next', type: 'application/atom+xml', href: feedText(head.next) });
  for (const entry of entries) {
    const element = feed.ele('entry');
    element.ele('id').txt(feedText(entry.id));
    element.ele('title', { type: 'text' }).txt(feedText(entry.title));
    element.ele('link', { rel: 'alternate', type: 'text/html', href: feedText(entry.link) });
    element.ele('published').txt(entry.published.toISOString());
    element.ele('updated').txt(entry.updated.toISOString());
    element.ele('author').ele('name').txt(feedText(entry.author));
    for (const category of entry.categories) element.ele('category', { term: feedText(category) });
    element.ele('summary', { type: 'text' }).txt(feedText(entry.summary));
    element.ele('content', { type: 'html' }).txt(feedText(entry.content));
  }
  return document.end({ prettyPrint: false });
}

function rss(head: FeedHead, entries: readonly FeedEntry[]): string {
  const document = createXmlDocument(XML_BUILDER_OPTIONS);
  const root = document.ele('rss', { version: '2.0' });
  root.att('http://www.w3.org/2000/xmlns/', 'xmlns:atom', ATOM_NS);
  root.att('http://www.w3.org/2000/xmlns/', 'xmlns:content', CONTENT_NS);
  root.att('http://www.w3.org/2000/xmlns/', 'xmlns:dc', DC_NS);
  const channel = root.ele('channel');
  channel.ele('title').txt(FEED_TITLE);
  channel.ele('link').txt(feedText(head.home));
  channel.ele('description').txt(FEED_DESCRIPTION);
  if (head.language !== undefined) channel.ele('language').txt(head.language);
  channel.ele('lastBuildDate').txt(head.updated.toUTCString());
  channel.ele(ATOM_NS, 'atom:link', { rel: 'self', type: 'application/rss+xml', href: feedText(head.self) });
  if (head.next) channel.ele(ATOM_NS, 'atom:link', { rel: 'next', type: 'application/rss+xml', href: feedText(head.next) });
  for (const entry of entries) {
    const item = channel.ele('item');
    item.ele('title').txt(feedText(entry.title));
    item.ele('link').txt(feedText(entry.link));
    item.ele('guid', { isPermaLink: 'false' }).txt(feedText(entry.id));
    item.ele('pubDate').txt(entry.published.toUTCString());
    item.ele(ATOM_NS, 'atom:updated').txt(entry.updated.toISOString());
    item.ele(DC_NS, 'dc:creator').txt(feedText(entry.author));
    for (const category of entry.categories) item.ele('category').txt(feedText(category));
    item.ele('description').txt(feedText(entry.summary));
    item.ele(CONTENT_NS, 'content:encoded').txt(feedText(entry.content));
  }
  return document.end({ prettyPrint: false });
}

function jsonFeed(head: FeedHead, entries: readonly FeedEntry[]): string {
  return JSON.stringify({
    version: 'https://jsonfeed.org/version/1.1',
    title: FEED_TITLE,
    description: FEED_DESCRIPTION,
    home_page_url: head.home,
    feed_url: head.self,
    ...(head.language === undefined ? {} : { language: head.language }),
    ...(head.next ? { next_url: head.next } : {}),
    items: entries.map((entry) => ({
      id: entry.id,
      url: entry.link,
      title: entry.title,
      summary: entry.summary,
      content_html: entry.content,
      date_published: entry.published.toISOString(),
      date_modified: entry.updated.toISOString(),
      authors: [{ name: entry.author }],
      tags: entry.categories,
    })),
  });
}
