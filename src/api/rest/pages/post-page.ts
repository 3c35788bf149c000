import { Injectable } from '@nestjs/common';
import type { Actor } from '../../../common/actor.js';
import type { ListItem } from '../../../common/resource/resource.js';
import { COMMENT_RESOURCE } from '../../../comments/comment.resource.js';
import { CommentsService } from '../../../comments/comments.service.js';
import { POST_RESOURCE } from '../../../posts/post.resource.js';
import { PublicUrls } from '../../../publication/public-urls.js';
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
<div class="content"><%~ it.post.bodyHtml %></div>
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
<% } %><script type="application/ld+json"><%~ it.jsonLd %></script>`);

type Author = Awaited<ReturnType<typeof authorOf>>;

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

  constructor(
    private readonly users: UsersService,
    private readonly comments: CommentsService,
    private readonly urls: PublicUrls,
  ) {}

  title(post: ListItem): string {
    return String(post.metaTitle ?? post.title);
  }

  async body(post: ListItem, reader: Actor | null): Promise<string> {
    const author = await this.authorOf(post);
    const page = await this.comments.firstPageOf(post.id as number, { limit: COMMENTS_ON_POST_PAGE }, reader);
    const comments = await withAuthorNames(this.users, page.items.map((comment) => COMMENT_RESOURCE.view(comment)));
    return TEMPLATE({ post, author, comments: threaded(comments), commentCount: comments.length, moreComments: page.nextCursor !== null, avatar: avatarSource });
  }

  async head(post: ListItem): Promise<string> {
    const author = await this.authorOf(post);
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
      ...(tags.length ? { keywords: tags } : {}),
    };
    return HEAD_TEMPLATE({
      title,
      description,
      canonical,
      siteName: SITE_NAME,
      noindex: !published,
      // TODO(§14 media): the cover image's absolute URL, once posts have one (og:image and the JSON-LD `image`).
      image: undefined,
      publishedTime,
      modifiedTime,
      jsonLd: scriptJson(jsonLd),
    });
  }

  private authorOf(post: ListItem): Promise<Author> {
    let author = this.authors.get(post);
    if (!author) this.authors.set(post, (author = authorOf(this.users, post)));
    return author;
  }
}

/** What PUBLIC_POST_URL reads of a post, from its view (whose times are ISO text). */
function publicPost(post: ListItem): Parameters<PublicUrls['post']>[0] {
  return {
    id: post.id as number,
    slug: String(post.slug),
    publishedAt: typeof post.publishedAt === 'string' ? new Date(post.publishedAt) : null,
    createdAt: new Date(String(post.createdAt)),
  };
}
