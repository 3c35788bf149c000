import { type DefaultTreeAdapterMap, parse, parseFragment, serialize } from 'parse5';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { bearer } from './support/auth.js';
import { useApp } from './support/fixture.js';
import { createPost, type PostBody } from './support/resources.js';
import { describeEachDatabase } from './support/test-app.js';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];
type ParentNode = DefaultTreeAdapterMap['parentNode'];

const BASE = 'https://blog.example.com';
const POST_URL = 'https://www.example.com/{yyyy}/{slug}';
const FEED = `${BASE}/feed`;

/** The §13 fields of a post's JSON beside those test/support/resources.ts's PostBody names. */
type Post = PostBody & { slug: string; bodyHtml: string; excerpt: string; publishedAt: string | null; readingTimeMinutes: number; tags: string[] };

const isElement = (node: Node): node is Element => 'tagName' in node;
const childrenOf = (node: Node): Node[] => ('childNodes' in node ? (node as ParentNode).childNodes : []);

/** Every element under a node (itself excluded), in document order, that the test accepts. */
function elements(root: Node, test: (element: Element) => boolean = () => true): Element[] {
  const found: Element[] = [];
  const walk = (node: Node) => {
    for (const child of childrenOf(node)) {
      if (isElement(child)) {
        if (test(child)) found.push(child);
        // A template's content is a fragment of its own.
        walk(child.tagName === 'template' ? (child as DefaultTreeAdapterMap['template']).content : child);
      }
    }
  };
  walk(root);
  return found;
}

const attr = (element: Element, name: string): string | undefined => element.attrs.find((attribute) => attribute.name === name)?.value;

function textOf(node: Node): string {
  if (node.nodeName === '#text') return (node as DefaultTreeAdapterMap['textNode']).value;
  return childrenOf(node).map(textOf).join('');
}

/** A page parsed as a browser would, with what the tests read of its head. */
class Page {
  readonly document: DefaultTreeAdapterMap['document'];

  constructor(readonly html: string) {
    this.document = parse(html);
  }

  get head(): Element {
    return elements(this.document, (element) => element.tagName === 'head')[0];
  }

  get article(): Element {
    const [article] = elements(this.document, (element) => element.tagName === 'article');
    expect(article, 'an <article>').toBeDefined();
    return article;
  }

  /** The element holding the post's rendered body. */
  get content(): Element {
    const [content] = elements(this.article, (element) => attr(element, 'class') === 'content');
    expect(content, 'the article\'s content').toBeDefined();
    return content;
  }

  get title(): string {
    return textOf(elements(this.head, (element) => element.tagName === 'title')[0]);
  }

  /** The `content` of every `<meta>` with that name (`description`) or property (`og:title`). */
  metas(key: string): string[] {
    return elements(this.document, (element) => element.tagName === 'meta' && (attr(element, 'name') === key || attr(element, 'property') === key)).map(
      (element) => attr(element, 'content') ?? '',
    );
  }

  /** The one `<meta>` of that name or property. */
  meta(key: string): string {
    const values = this.metas(key);
    expect(values, `<meta> ${key}`).toHaveLength(1);
    return values[0];
  }

  /** Every `<link>` with that rel. */
  links(rel: string): Element[] {
    return elements(this.document, (element) => element.tagName === 'link' && attr(element, 'rel') === rel);
  }

  get scripts(): Element[] {
    return elements(this.document, (element) => element.tagName === 'script');
  }

  /** The page's one JSON-LD script, parsed. */
  get jsonLd(): Record<string, unknown> {
    const scripts = this.scripts.filter((script) => attr(script, 'type') === 'application/ld+json');
    expect(scripts).toHaveLength(1);
    return JSON.parse(textOf(scripts[0])) as Record<string, unknown>;
  }
}

/** HTML as parse5 writes it back, to compare a page's subtree with the fragment it was made of. */
const normalized = (html: string) => serialize(parseFragment(html));

describeEachDatabase('the HTML post page', (kind) => {
  const app = useApp(kind, { signIn: ['alice', 'bob', 'editor'], env: { PUBLIC_BASE_URL: BASE, PUBLIC_POST_URL: POST_URL } });

  const page = async (path: string, token?: string): Promise<Page> => {
    const request = app.http().get(path).set('Accept', 'text/html');
    if (token) void request.set(bearer(token));
    const response = await request;
    expect(response.status, response.text).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    return new Page(response.text);
  };
  const post = async (fields: Record<string, unknown> = {}): Promise<Post> => (await createPost(app, app.tokens.alice, fields)) as Post;

  describe('the body', () => {
    it('shows bodyHtml, not the escaped source: a plain post is paragraphs and line breaks', async () => {
      const created = await post({ body: 'First paragraph.\n\nSecond, line one\nline two\n\nThird: Tom & <Jerry>' });
      const shown = await page(`/posts/${created.id}`);
      const paragraphs = elements(shown.content, (element) => element.tagName === 'p');
      expect(paragraphs.map(textOf)).toEqual(['First paragraph.', 'Second, line one\nline two', 'Third: Tom & <Jerry>']);
      expect(elements(paragraphs[1], (element) => element.tagName === 'br')).toHaveLength(1);
      expect(serialize(shown.content)).toBe(normalized(created.bodyHtml));
      // The excerpt is not added to the page's body.
      expect(textOf(shown.article).split(created.excerpt)).toHaveLength(1);
    });

    it('an HTML post shows what its bodyHtml holds, and nothing the sanitizer took out', async () => {
      const body = '<h2>A heading</h2><ul><li>one</li><li>two</li></ul><p>See <a href="https://example.org/x">this</a>.</p><script>alert(1)</script>';
      const created = await post({ bodyFormat: 'html', body });
      const shown = await page(`/posts/${created.id}`);
      expect(serialize(shown.content)).toBe(normalized(created.bodyHtml));
      expect(shown.scripts.filter((script) => attr(script, 'type') !== 'application/ld+json')).toEqual([]);
    });

    it('a Markdown post shows what its bodyHtml holds', async () => {
      const created = await post({ bodyFormat: 'markdown', body: '# Title\n\n- one\n- two\n\n[a link](https://example.org/)\n' });
      const shown = await page(`/posts/${created.id}`);
      expect(serialize(shown.content)).toBe(normalized(created.bodyHtml));
    });

    it('the byline tells the reading time', async () => {
      const short = await post({ body: 'A few words.' });
      const long = await post({ body: Array.from({ length: 500 }, (_, index) => `word${index}`).join(' ') });
      expect(long.readingTimeMinutes).toBe(3);
      for (const [created, minutes] of [[short, 1], [long, 3]] as const) {
        const [byline] = elements((await page(`/posts/${created.id}`)).article, (element) => element.tagName === 'header');
        expect(textOf(byline)).toContain(`${minutes} min read`);
      }
    });
  });

  describe('the head', () => {
    it('a post with its own meta title, description and canonical URL: each where it belongs', async () => {
      const created = await post({
        title: 'The long title of a post',
        metaTitle: 'Short title',
        metaDescription: 'What search engines show.',
        canonicalUrl: 'https://elsewhere.example.org/original?a=1&b=2',
        tags: ['News', 'how-to'],
      });
      const shown = await page(`/posts/${created.id}`);
      expect(shown.title).toBe('Short title · Blog');
      expect(shown.meta('description')).toBe('What search engines show.');
      expect(shown.links('canonical').map((link) => attr(link, 'href'))).toEqual(['https://elsewhere.example.org/original?a=1&b=2']);
      expect(shown.meta('og:title')).toBe('Short title');
      expect(shown.meta('og:description')).toBe('What search engines show.');
      expect(shown.meta('og:type')).toBe('article');
      expect(shown.meta('og:url')).toBe('https://elsewhere.example.org/original?a=1&b=2');
      expect(shown.meta('og:site_name')).toBe('Blog');
      // Without a cover image, no og:image.
      expect(shown.metas('og:image')).toEqual([]);
      expect(created.publishedAt).not.toBeNull();
      expect(shown.meta('article:published_time')).toBe(created.publishedAt);
      expect(shown.meta('article:modified_time')).toBe(created.updatedAt);
      expect(shown.metas('robots')).toEqual([]);

      expect(shown.jsonLd).toEqual({
        '@context': 'https://schema.org',
        '@type': 'BlogPosting',
        headline: 'The long title of a post',
        description: 'What search engines show.',
        url: 'https://elsewhere.example.org/original?a=1&b=2',
        mainEntityOfPage: { '@type': 'WebPage', '@id': 'https://elsewhere.example.org/original?a=1&b=2' },
        datePublished: created.publishedAt,
        dateModified: created.updatedAt,
        author: { '@type': 'Person', name: 'Alice Author', url: `${BASE}/users/${created.authorId}` },
        inLanguage: 'en',
        keywords: created.tags,
      });
      expect([...created.tags].sort()).toEqual(['how-to', 'news']);
    });

    it('a cover image: shown above the body with its alt text, and og:image and the JSON-LD image its absolute URL', async () => {
      const png = await sharp({ create: { width: 120, height: 80, channels: 3, background: '#336699' } }).png().toBuffer();
      const upload = await app.http().post('/media').set(bearer(app.tokens.alice)).set('content-type', 'image/png').set('content-disposition', 'attachment; filename="cover.png"').send(png);
      expect(upload.status, upload.text).toBe(201);
      const mediaId = upload.body.id as number;
      await app.http().patch(`/media/${mediaId}`).set(bearer(app.tokens.alice)).send({ alt: 'A blue "square" & more', caption: 'The caption' }).expect(200);
      const created = await post({ title: 'With a cover', coverImageId: mediaId });
      const shown = await page(`/posts/${created.id}`);
      const [figure] = elements(shown.article, (element) => element.tagName === 'figure');
      expect(figure, 'a <figure> in the article').toBeDefined();
      const [img] = elements(figure, (element) => element.tagName === 'img');
      expect(attr(img, 'src')).toBe(`/media/${mediaId}/file`);
      expect(attr(img, 'alt')).toBe('A blue "square" & more');
      expect([attr(img, 'width'), attr(img, 'height')]).toEqual(['120', '80']);
      expect(textOf(elements(figure, (element) => element.tagName === 'figcaption')[0])).toBe('The caption');
      expect(shown.meta('og:image')).toBe(`${BASE}/media/${mediaId}/file`);
      expect(shown.jsonLd.image).toBe(`${BASE}/media/${mediaId}/file`);
      // Anonymous readers see it too: the post is public, so is its cover.
      expect((await app.http().get(`/media/${mediaId}/file`)).status).toBe(200);
    });

    it('without them: the title, the derived excerpt and PUBLIC_POST_URL', async () => {
      const created = await post({ title: 'Plain defaults', slug: 'plain-defaults', body: 'Just a body, long enough to say something.\n\nAnd a second paragraph.' });
      expect(created.excerpt).toBe('Just a body, long enough to say something. And a second paragraph.');
      const shown = await page(`/posts/${created.id}`);
      const canonical = `https://www.example.com/${created.publishedAt!.slice(0, 4)}/plain-defaults`;
      expect(shown.title).toBe('Plain defaults · Blog');
      expect(shown.meta('description')).toBe(created.excerpt);
      expect(shown.meta('og:description')).toBe(created.excerpt);
      expect(shown.meta('og:title')).toBe('Plain defaults');
      expect(shown.links('canonical').map((link) => attr(link, 'href'))).toEqual([canonical]);
      expect(shown.meta('og:url')).toBe(canonical);
      expect(shown.jsonLd).toMatchObject({ '@type': 'BlogPosting', headline: 'Plain defaults', description: created.excerpt, url: canonical, datePublished: created.publishedAt });
      expect(shown.jsonLd).not.toHaveProperty('keywords');
    });

    it('the canonical URL follows the slug when it changes', async () => {
      const created = await post({ slug: 'before-the-change' });
      await app.http().patch(`/posts/${created.id}`).set(bearer(app.tokens.alice)).send({ slug: 'after-the-change' }).expect(200);
      const shown = await page(`/posts/${created.id}`);
      expect(attr(shown.links('canonical')[0], 'href')).toMatch(/^https:\/\/www\.example\.com\/\d{4}\/after-the-change$/);
    });

    it('hostile text in the title and description stays text: one script (the JSON-LD), which parses back to it', async () => {
      const title = '</script><script>alert(1)</script> "><img src=x onerror=1> <!-- & \u2028 -->';
      const metaDescription = '"><img src=x onerror=2></script><script>alert(2)</script><!--';
      const metaTitle = '</title><script>alert(3)</script>';
      for (const fields of [{ title, metaDescription }, { title, metaTitle, tags: ['</script>x'] }, { title }]) {
        const created = await post(fields);
        const shown = await page(`/posts/${created.id}`);
        expect(shown.scripts, JSON.stringify(fields)).toHaveLength(1);
        expect(attr(shown.scripts[0], 'type')).toBe('application/ld+json');
        expect(elements(shown.document, (element) => element.attrs.some((attribute) => attribute.name.startsWith('on')))).toEqual([]);
        expect(elements(shown.document, (element) => element.tagName === 'img' && attr(element, 'src') === 'x')).toEqual([]);
        expect(created.title).toBe(title);
        expect(shown.jsonLd.headline).toBe(title);
        expect(shown.jsonLd.description).toBe(fields.metaDescription ?? created.excerpt);
        expect(shown.meta('description')).toBe(fields.metaDescription ?? created.excerpt);
        expect(shown.meta('og:title')).toBe(fields.metaTitle ?? title);
        expect(shown.title).toBe(`${fields.metaTitle ?? title} · Blog`);
        expect(textOf(elements(shown.article, (element) => element.tagName === 'h1')[0])).toBe(title);
        if (fields.tags) expect(shown.jsonLd.keywords).toEqual(created.tags);
      }
    });

    it('a post that is not public, seen by its author or an editor, is marked noindex and carries no publication time', async () => {
      const draft = await post({ status: 'draft', title: 'Not yet' });
      for (const token of [app.tokens.alice, app.tokens.editor]) {
        const shown = await page(`/posts/${draft.id}`, token);
        expect(shown.meta('robots')).toBe('noindex');
        expect(shown.metas('article:published_time')).toEqual([]);
        expect(shown.jsonLd).not.toHaveProperty('datePublished');
        expect(shown.jsonLd).toMatchObject({ headline: 'Not yet', dateModified: draft.updatedAt });
      }
      await app.http().get(`/posts/${draft.id}`).set('Accept', 'text/html').expect(404);

      const published = await post({ title: 'Out now' });
      for (const token of [undefined, app.tokens.alice]) expect((await page(`/posts/${published.id}`, token)).metas('robots')).toEqual([]);
    });
  });

  describe('the feed link', () => {
    it('every HTML page links the Atom feed at PUBLIC_BASE_URL', async () => {
      const created = await post({ tags: ['feed-linked'] });
      const tag = (await app.http().get('/tags?slug=feed-linked').expect(200)).body as { id: number }[];
      const paths = [`/posts/${created.id}`, '/posts', '/posts?limit=1', '/users', '/users/2', '/users/2/posts', `/tags/${tag[0].id}`, '/tags', '/comments/1', '/posts/1/comments'];
      for (const path of paths) {
        const shown = await page(path);
        const feeds = shown.links('alternate').filter((link) => attr(link, 'type') === 'application/atom+xml');
        expect(feeds.map((link) => [attr(link, 'href'), attr(link, 'title')]), path).toEqual([[FEED, 'Blog']]);
        expect(elements(shown.head, (element) => element === feeds[0]), `${path}: in the head`).toHaveLength(1);
      }
    });

    it('an error page links the feed too (relative: errors are written without the settings)', async () => {
      for (const path of ['/posts/999999', '/users/999999', '/no-such-page']) {
        const response = await app.http().get(path).set('Accept', 'text/html').expect(404);
        expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
        const feeds = new Page(response.text).links('alternate').filter((link) => attr(link, 'type') === 'application/atom+xml');
        expect(feeds.map((link) => attr(link, 'href')), path).toEqual(['/feed']);
      }
    });

    it('pages of other kinds than posts carry no post head', async () => {
      for (const path of ['/users/2', '/posts', '/comments/1']) {
        const shown = await page(path);
        expect(shown.links('canonical'), path).toEqual([]);
        expect(shown.scripts, path).toEqual([]);
        expect(shown.metas('og:type'), path).toEqual([]);
      }
    });
  });
});
