import { Injectable } from '@nestjs/common';
import type { Actor } from '../../../common/actor.js';
import type { ListItem } from '../../../common/resource/resource.js';
import { COMMENT_RESOURCE } from '../../../comments/comment.resource.js';
import { CommentsService } from '../../../comments/comments.service.js';
import { POST_RESOURCE } from '../../../posts/post.resource.js';
import { PublicUrls } from '../../../publication/public-urls.js';
import { MediaService } from '../../../media/media.service.js';
import { mediaFilePath } from '../../../media/media.resource.js';
import { UsersService } from '../../../users/users.service.js';
import { authorOf, withAuthorNames } from './authors.js';
import { COMMENT_THREAD_TEMPLATE, threaded } from './comment-thread.js';
import type { ItemPage } from './page.js';
import { AVATAR_TEMPLATE, avatarSource, TAGS_TEMPLATE } from './page-parts.js';
import { scriptJson } from './script-json.js';
import { compileTemplate } from './template.js';

/** How many of a post's comments its page shows (a link leads to the rest). */
const COMMENTS_ON_POST_PAGE = 100;

/** The site's name, as the layout's titles carry it. */
const SITE_NAME = 'Blog';

// `bodyHtml` is output raw: it was sanitized by the allowlist when the post was written.
const TEMPLATE = compileTemplate(`<article class="post">
<h1><%= it.post.title %></h1>
<header class="byline">${AVATAR_TEMPLATE}<span>by <a rel="author" href="<%= it.post._links.author.href %>"><%= it.author ? it.author.name : 'unknown' %></a></span> <time datetime="<%= it.post.createdAt %>"><%= it.post.createdAt %></time> <span class="reading"><%= it.post.readingTimeMinutes %> min read</span> <span class="status"><%= it.post.status %></span></header>
<% if (it.cover) { %><figure class="cover"><img src="<%= it.cover.src %>"<% if (it.cover.srcset) { %> srcset="<%= it.cover.srcset %>" sizes="(max-width: 48rem) 100vw, 48rem"<% } %> width="<%= it.cover.width %>" height="<%= it.cover.height %>" alt="<%= it.cover.alt %>"><% if (it.cover.caption) { %><figcaption><%= it.cover.caption %></figcaption><% } %></figure>
<% } %><div class="content"><%~ it.post.bodyHtml %></div>
${TAGS_TEMPLATE('it.post')}
</article>
<% if (it.comments) { %><section>
<h2>Comments (<%= it.commentCount %><%= it.moreComments ? '+' : '' %>)</h2>
${COMMENT_THREAD_TEMPLATE}<% thread(it.comments) %>
<% if (it.moreComments) { %><p><a href="<%= it.post._links.comments.href %>">All comments</a></p><% } %>
</section><% } %>`);

// Every value is escaped but the JSON-LD, which scriptJson made safe inside a script element.
const HEAD_TEMPLATE = compileTemplate(`<meta name="description" content="<%= it.description %>">
<% if (it.noindex) { %><meta name="robots" content="noindex">
<% } %><link rel="canonical" href="<%= it.canonical %>">
<meta property="og:type" content="article">
<meta property="og:site_name" content="<%= it.siteName %>">
<meta property="og:title" content="<%= it.title %>">
<meta property="og:description" content="<%= it.description %>">
<meta property="og:url" content="<%= it.canonical %>">
<% if (it.image) { %><meta property="og:image" content="<%= it.image %>">
<% } %><% if (it.publishedTime) { %><meta property="article:published_time" content="<%= it.publishedTime %>">
<meta property="article:modified_time" content="<%= it.modifiedTime %>">
<% } %><% it.alternates.forEach(function (alternate) { %><link rel="alternate" hreflang="<%= alternate.hreflang %>" href="<%= alternate.href %>">
<% }) %><script type="application/ld+json"><%~ it.jsonLd %></script>`);

type Author = Awaited<ReturnType<typeof authorOf>>;

/** The cover image on the page: the original, its variants as a srcset, its alt text. */
interface Cover {
  src: string;
  srcset?: string;
  width: number;
  height: number;
  alt: string;
  caption: string | null;
}

/**
 * A post: its rendered body, its author's name and avatar, and its first comments as threads,
 * those the reader may see; in the head, what search engines and link previews read of it
 * (description, canonical URL, Open Graph, a schema.org BlogPosting).
 */
@Injectable()
export class PostPage implements ItemPage {
  readonly kind = POST_RESOURCE.kind;
  /** The author of the view being rendered, looked up once for its head and its body. */
  private readonly authors = new WeakMap<ListItem, Promise<Author>>();
  private readonly covers = new WeakMap<ListItem, Promise<Cover | undefined>>();

  constructor(
    private readonly users: UsersService,
    private readonly comments: CommentsService,
    private readonly urls: PublicUrls,
    private readonly media: MediaService,
  ) {}

  title(post: ListItem): string {
    return String(post.metaTitle ?? post.title);
  }

  lang(post: ListItem): string | undefined {
    return typeof post.locale === 'string' ? post.locale : undefined;
  }

  async body(post: ListItem, reader: Actor | null): Promise<string> {
    const author = await this.authorOf(post);
    const page = await this.comments.firstPageOf(post.id as number, { limit: COMMENTS_ON_POST_PAGE }, reader);
    const comments = await withAuthorNames(this.users, page.items.map((comment) => COMMENT_RESOURCE.view(comment)));
    const cover = await this.coverOf(post, reader);
    return TEMPLATE({ post, author, cover, comments: threaded(comments), commentCount: comments.length, moreComments: page.nextCursor !== null, avatar: avatarSource });
  }

  async head(post: ListItem, reader: Actor | null): Promise<string> {
    const author = await this.authorOf(post);
    const cover = await this.coverOf(post, reader);
    const image = cover ? this.urls.absolute(cover.src) : undefined;
    const title = this.title(post);
    const description = String(post.metaDescription ?? post.excerpt);
    const canonical = typeof post.canonicalUrl === 'string' ? post.canonicalUrl : this.urls.post(publicPost(post));
    // A post that is not public (seen by its author or an editor) is never to be indexed.
    const published = post.status === 'published' && typeof post.publishedAt === 'string';
    const publishedTime = published ? (post.publishedAt as string) : undefined;
    const modifiedTime = String(post.updatedAt);
    const tags = Array.isArray(post.tags) ? (post.tags as string[]) : [];
    const jsonLd = {
      '@context': 'https://schema.org',
      '@type': 'BlogPosting',
      headline: String(post.title),
      description,
      url: canonical,
      mainEntityOfPage: { '@type': 'WebPage', '@id': canonical },
      ...(publishedTime ? { datePublished: publishedTime } : {}),
      dateModified: modifiedTime,
      author: { '@type': 'Person', name: author?.name ?? 'unknown', url: this.urls.absolute(`/users/${String(post.authorId)}`) },
      ...(typeof post.locale === 'string' ? { inLanguage: post.locale } : {}),
      ...(tags.length ? { keywords: tags } : {}),
      ...(image ? { image } : {}),
    };
    return HEAD_TEMPLATE({
      title,
      description,
      canonical,
      siteName: SITE_NAME,
      noindex: !published,
      image,
      publishedTime,
      modifiedTime,
      jsonLd: scriptJson(jsonLd),
      // Its translations that the reader may see, as its links carry them.
      alternates: translationLinks(post).map((link) => ({ hreflang: link.hreflang, href: this.urls.absolute(link.href) })),
    });
  }

  /** The cover image as the page shows it, if the post has one the reader may see (looked up once for the head and the body). */
  private coverOf(post: ListItem, reader: Actor | null): Promise<Cover | undefined> {
    let cover = this.covers.get(post);
    if (!cover) this.covers.set(post, (cover = this.readCover(post, reader)));
    return cover;
  }

  private async readCover(post: ListItem, reader: Actor | null): Promise<Cover | undefined> {
    if (typeof post.coverImageId !== 'number') return undefined;
    const [media] = await this.media.findByIds([post.coverImageId]);
    if (!media || !this.media.canSee(media, reader)) return undefined;
    const variants = media.variants ?? [];
    return {
      src: mediaFilePath(media.id),
      srcset: variants.length ? [...variants.map((variant) => `${variant.href} ${variant.width}w`), `${mediaFilePath(media.id)} ${media.width}w`].join(', ') : undefined,
      width: media.width,
      height: media.height,
      alt: media.alt ?? '',
      caption: media.caption,
    };
  }

  private authorOf(post: ListItem): Promise<Author> {
    let author = this.authors.get(post);
    if (!author) this.authors.set(post, (author = authorOf(this.users, post)));
    return author;
  }
}

/** The `_links.translations` of a post's view: each with its href and hreflang. */
function translationLinks(post: ListItem): { href: string; hreflang: string }[] {
  const links = (post._links as Record<string, unknown> | undefined)?.translations;
  if (!Array.isArray(links)) return [];
  return (links as { href?: unknown; hreflang?: unknown }[]).flatMap((link) =>
    typeof link.href === 'string' && typeof link.hreflang === 'string' ? [{ href: link.href, hreflang: link.hreflang }] : [],
  );
}

/** What PUBLIC_POST_URL reads of a post, from its view (whose times are ISO text). */
function publicPost(post: ListItem): Parameters<PublicUrls['post']>[0] {
  return {
    id: post.id as number,
    slug: String(post.slug),
    ...(typeof post.locale === 'string' ? { locale: post.locale } : {}),
    publishedAt: typeof post.publishedAt === 'string' ? new Date(post.publishedAt) : null,
    createdAt: new Date(String(post.createdAt)),
  };
}
