import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bodyHtmlProblems, linksOf, pageProblems, tagsOf } from '../../test/support/html-safety.js';
import type { PublicUrls } from '../publication/public-urls.js';
import { ContentEngine, textOfHtml } from './content-engine.js';

const renderer = new ContentEngine({ origin: 'https://blog.example.com' } as PublicUrls);
const markdown = (body: string) => renderer.renderPost(body, 'markdown');
const html = (body: string) => renderer.renderPost(body, 'html');

const { vectors } = JSON.parse(readFileSync(new URL('../../test/fixtures/xss-vectors.json', import.meta.url), 'utf8')) as { vectors: string[] };

describe('ContentEngine', () => {
  describe('plain', () => {
    it('escapes the text, paragraphs at blank lines, <br> at single breaks; the text is the body', () => {
      const rendered = renderer.renderPost('a <b>\nc\n\n# not a heading', 'plain');
      expect(rendered.bodyHtml).toBe('<p>a &lt;b&gt;<br>\nc</p>\n<p># not a heading</p>');
      expect(rendered.text).toBe('a <b>\nc\n\n# not a heading');
    });
  });

  describe('markdown', () => {
    it('renders CommonMark: headings, emphasis, lists, code blocks with their language', () => {
      const { bodyHtml } = markdown('# Title\n\nSome *em* and **strong**.\n\n1. one\n2. two\n\n```ts\nconst a = 1 < 2;\n```');
      expect(bodyHtml).toBe('<h1>Title</h1>\n<p>Some <em>em</em> and <strong>strong</strong>.</p>\n<ol>\n<li>one</li>\n<li>two</li>\n</ol>\n<pre><code class="language-ts">const a = 1 &lt; 2;\n</code></pre>');
    });

    it('renders GFM tables (alignment as align, not style), strikethrough and autolinks', () => {
      const { bodyHtml } = markdown('| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n\n~~gone~~ see https://example.org/x and www.example.net');
      expect(bodyHtml).toContain('<th align="left">a</th>\n<th align="center">b</th>\n<th align="right">c</th>');
      expect(bodyHtml).toContain('<td align="left">1</td>');
      expect(bodyHtml).not.toContain('style');
      expect(bodyHtml).toContain('<s>gone</s>');
      expect(linksOf(bodyHtml)).toEqual([
        { href: 'https://example.org/x', rel: 'noopener noreferrer' },
        { href: 'http://www.example.net', rel: 'noopener noreferrer' },
      ]);
    });

    it('lets raw HTML through the allowlist only', () => {
      const { bodyHtml } = markdown('Hello <abbr title="HyperText">HTML</abbr> <span onclick="x()">span</span>\n\n<script>alert(1)</script>\n\n<div class="x">block</div>');
      expect(bodyHtml).toBe('<p>Hello <abbr title="HyperText">HTML</abbr> <span>span</span></p>\n\n<div>block</div>');
    });

    it('a javascript: link of Markdown is not a link', () => {
      const { bodyHtml } = markdown('[x](javascript:alert(1)) [y](&#x6A;avascript:alert(1))');
      expect(linksOf(bodyHtml).filter((link) => link.href !== undefined)).toEqual([]);
    });

    it('the text (for excerpt and reading time) has no markup: no #, *, |, no tags, entities decoded', () => {
      const rendered = markdown('# Heading\n\nSome *em* and **strong** &amp; `a<b`.\n\n| x | y |\n|---|---|\n| 1 | 2 |');
      const excerpt = renderer.excerptOf(rendered);
      expect(excerpt).toBe('Heading Some em and strong & a<b. x y 1 2');
      expect(excerpt).not.toMatch(/[#*|]/);
    });

    it('reading time counts the words of the text at 230 a minute, rounded up, at least 1', () => {
      const words = (count: number) => Array.from({ length: count }, (_, index) => `**w${index}**`).join(' ');
      expect(markdown('# x').readingTimeMinutes).toBe(1);
      expect(markdown(words(460)).readingTimeMinutes).toBe(2);
      expect(markdown(words(461)).readingTimeMinutes).toBe(3);
      // Markup is not words: 230 words in headings, cells and emphasis are one minute.
      expect(markdown(`# ${words(100)}\n\n| ${words(30)} |\n|---|\n\n${words(100)}`).readingTimeMinutes).toBe(1);
    });

    it('a derived excerpt is cut at a word before 300 characters', () => {
      const excerpt = renderer.excerptOf(markdown(`## ${'word '.repeat(100)}`));
      expect(excerpt.length).toBeLessThan(300);
      expect(excerpt).toMatch(/^word( word)*…$/);
    });
  });

  describe('html', () => {
    it('keeps allowed elements and attributes as written', () => {
      const body = '<h2>T</h2><p>a<br>b</p><figure><img src="/media/1" alt="A" width="10" height="5" loading="lazy"><figcaption>c</figcaption></figure>'
        + '<details><summary>s</summary><ol start="3"><li><kbd>k</kbd></li></ol></details><table><tr><td colspan="2" rowspan="1">x</td></tr></table>';
      const { bodyHtml } = html(body);
      expect(bodyHtml).toContain('<img src="/media/1" alt="A" width="10" height="5" loading="lazy" />');
      expect(bodyHtml).toContain('<ol start="3"><li><kbd>k</kbd></li></ol>');
      expect(bodyHtml).toContain('<td colspan="2" rowspan="1">x</td>');
      expect(bodyHtmlProblems(bodyHtml, 'post')).toEqual([]);
    });

    it('removes what is not allowed: script and style with their content, id, class, style, handlers, target', () => {
      const { bodyHtml } = html('<p id="i" class="c" style="color:red" onclick="x()">p</p><script>evil()</script><style>p{}</style><a href="/x" target="_blank">l</a><code class="language-js js">c</code><img src="x" loading="soon">');
      expect(bodyHtml).toBe('<p>p</p><a href="/x">l</a><code class="language-js">c</code><img src="x" />');
    });

    it('words of adjacent blocks do not run together in the text', () => {
      expect(html('<p>one</p><p>two</p><ul><li>three</li><li>four</li></ul>five<br>six').text.split(/\s+/).filter(Boolean)).toEqual(['one', 'two', 'three', 'four', 'five', 'six']);
    });

    it('img src: http(s), relative and data:image/(png|gif|jpeg|webp); never data:image/svg+xml or other data:', () => {
      const srcOf = (src: string) => /src="([^"]*)"/.exec(html(`<img src="${src}">`).bodyHtml)?.[1];
      expect(srcOf('https://cdn.example/a.png')).toBe('https://cdn.example/a.png');
      expect(srcOf('/media/3')).toBe('/media/3');
      expect(srcOf('data:image/png;base64,iVBORw0KGgo=')).toBe('data:image/png;base64,iVBORw0KGgo=');
      expect(srcOf('data:image/webp;base64,UklGRg==')).toBe('data:image/webp;base64,UklGRg==');
      for (const bad of ['data:image/svg+xml,<svg onload=alert(1)>', ' DATA:image/svg+xml;base64,PHN2Zz4=', 'data:text/html,x', 'javascript:alert(1)', 'jav&#x09;ascript:alert(1)', 'mailto:a@example.com']) {
        expect(srcOf(bad), bad).toBeUndefined();
      }
      expect(html('<img srcset="data:image/png;base64,AA 1x, javascript:x 2x, /a.png 3x">').bodyHtml).toBe('<img srcset="/a.png 3x" />');
    });

    it('links: http(s), mailto and relative kept; javascript:, vbscript:, data: dropped however written', () => {
      for (const good of ['https://example.org/', 'http://example.org/', 'mailto:a@example.com', '/posts/1', 'posts/1', '#top', '?page=2']) {
        expect(linksOf(html(`<a href="${good}">x</a>`).bodyHtml)[0].href, good).toBe(good);
      }
      for (const bad of ['javascript:alert(1)', 'JaVaScRiPt:alert(1)', '&#x6A;avascript:alert(1)', 'java&#x09;script:alert(1)', ' &#14; javascript:alert(1)', 'javascript&colon;alert(1)',
        'vbscript:msgbox(1)', 'data:text/html,<script>alert(1)</script>', 'data:image/png;base64,AA', 'java<!-- -->script:alert(1)', 'file:///etc/passwd']) {
        expect(linksOf(html(`<a href="${bad}">x</a>`).bodyHtml)[0].href, bad).toBeUndefined();
      }
    });

    it('links to other origins get rel="noopener noreferrer"; same-origin links no rel; the author\'s rel is not kept', () => {
      const rels = linksOf(html([
        '<a href="https://blog.example.com/posts/1" rel="opener">same</a>',
        '<a href="/posts/2" rel="nofollow">relative</a>',
        '<a href="https://blog.example.com:8443/x">other port</a>',
        '<a href="http://blog.example.com/x">other scheme</a>',
        '<a href="//evil.example/x">protocol-relative</a>',
        '<a href="/\\evil.example/x">backslash</a>',
        '<a href="https://evil.example/" rel="opener">other</a>',
        '<a href="mailto:a@example.com">mail</a>',
      ].join('')).bodyHtml).map((link) => link.rel);
      expect(rels).toEqual([undefined, undefined, 'noopener noreferrer', 'noopener noreferrer', 'noopener noreferrer', 'noopener noreferrer', 'noopener noreferrer', 'noopener noreferrer']);
    });
  });

  describe('comments', () => {
    it('Markdown without headings, images, tables or raw HTML; emphasis, code, quotes, lists and links stay', () => {
      const rendered = renderer.renderComment('# not a heading\n\n![alt](https://example.org/i.png) <b>raw</b>\n\n> *quote* `code` ~~del~~\n\n- item\n\n| a |\n|---|\n| b |');
      expect(tagsOf(rendered)).not.toContain('h1');
      expect(tagsOf(rendered)).not.toContain('img');
      expect(tagsOf(rendered)).not.toContain('b');
      expect(tagsOf(rendered)).not.toContain('table');
      expect(rendered).toContain('<p># not a heading</p>');
      expect(rendered).toContain('&lt;b&gt;raw&lt;/b&gt;');
      expect(rendered).toContain('<blockquote>\n<p><em>quote</em> <code>code</code> <s>del</s></p>\n</blockquote>');
      expect(rendered).toContain('<ul>\n<li>item</li>\n</ul>');
      expect(bodyHtmlProblems(rendered, 'comment')).toEqual([]);
    });

    it('every link, same-origin too, gets rel="nofollow ugc noopener noreferrer"', () => {
      const links = linksOf(renderer.renderComment('[a](https://blog.example.com/x) [b](/y) https://example.org <https://example.net> [c](mailto:a@example.com)'));
      expect(links.map((link) => link.href)).toEqual(['https://blog.example.com/x', '/y', 'https://example.org', 'https://example.net', 'mailto:a@example.com']);
      expect(new Set(links.map((link) => link.rel))).toEqual(new Set(['nofollow ugc noopener noreferrer']));
    });

    it('a javascript: or data: link is not a link', () => {
      expect(linksOf(renderer.renderComment('[a](javascript:alert(1)) [b](data:text/html,x) <javascript:alert(1)>'))).toEqual([]);
    });
  });

  describe('the checker of the corpus tests (test/support/html-safety.ts) finds what it looks for', () => {
    it.each([
      ['<script>alert(1)</script>', '<script> is not allowed'],
      ['<img src=x onerror=alert(1)>', '<img onerror> is not allowed'],
      ['<p style="x">p</p>', '<p style> is not allowed'],
      ['<p id="x">p</p>', '<p id> is not allowed'],
      ['<span class="x">s</span>', '<span class> is not allowed'],
      ['<code class="evil">c</code>', '<code class="evil">'],
      ['<a href=" &#x6A;ava&#x09;script:alert(1)">x</a>', 'a[href] has a javascript: URL'],
      ['<a href="data:image/png;base64,AA">x</a>', 'a[href] has a data: URL'],
      ['<img src="data:image/svg+xml,x">', 'img[src] has a data: URL'],
      ['<img srcset="/a.png 1x, vbscript:x 2x">', 'img[srcset] has a vbscript: URL'],
      ['<svg><p>x</p></svg>', '<svg> is not allowed'],
    ])('%s', (html, problem) => {
      expect(bodyHtmlProblems(html, 'post').join('\n')).toContain(problem);
    });

    it('a comment may not hold what a post may', () => {
      expect(bodyHtmlProblems('<h1>t</h1><img src="/a.png"><table></table>', 'comment')).toEqual(['<h1> is not allowed', '<img> is not allowed', '<table> is not allowed']);
      expect(bodyHtmlProblems('<img src="data:image/png;base64,AA"><a href="/x">x</a>', 'post')).toEqual([]);
    });

    it('a page: executable elements, handlers and bad URLs in its body, not its head', () => {
      const page = (body: string) => `<!doctype html><html><head><style>p{}</style></head><body>${body}</body></html>`;
      expect(pageProblems(page('<p>fine</p><img class="avatar" src="data:image/svg+xml,x">'))).toEqual([]);
      expect(pageProblems(page('<script type="application/ld+json">{}</script>'))).toEqual([]);
      expect(pageProblems(page('<script>x</script><iframe srcdoc=x></iframe><div onclick=x></div><form action="javascript:x"></form>'))).toEqual([
        '<script> in the page body', '<iframe> in the page body', '<div onclick> in the page body', '<form> in the page body', 'form[action] has a javascript: URL ("javascript:x")',
      ]);
    });
  });

  describe(`the XSS corpus (${vectors.length} vectors of test/fixtures/xss-vectors.json)`, () => {
    it('has many vectors', () => {
      expect(vectors.length).toBeGreaterThanOrEqual(100);
    });

    it.each([['html'], ['markdown']] as const)('as %s, every vector renders to allowed elements, attributes and URLs only', (format) => {
      const problems = vectors.flatMap((vector) => bodyHtmlProblems(renderer.renderPost(vector, format).bodyHtml, 'post').map((problem) => `${JSON.stringify(vector)}: ${problem}`));
      expect(problems).toEqual([]);
      // All of them in one body, where one vector's unclosed tag swallows the next.
      expect(bodyHtmlProblems(renderer.renderPost(vectors.join('\n'), format).bodyHtml, 'post')).toEqual([]);
    });

    it('as a comment, every vector renders to the comments\' allowlist, every link with its rel', () => {
      const problems = vectors.flatMap((vector) => {
        const rendered = renderer.renderComment(vector);
        const badRel = linksOf(rendered).filter((link) => link.rel !== 'nofollow ugc noopener noreferrer').map(() => 'a link without the comment rel');
        return [...bodyHtmlProblems(rendered, 'comment'), ...badRel].map((problem) => `${JSON.stringify(vector)}: ${problem}`);
      });
      expect(problems).toEqual([]);
    });

    it('the text of a rendered vector holds no markup the page could run when escaped again', () => {
      for (const vector of vectors) expect(() => textOfHtml(html(vector).bodyHtml)).not.toThrow();
    });
  });
  describe('media in a body', () => {
    const withBase = new ContentEngine({ origin: 'https://blog.example.com', base: 'https://blog.example.com/blog' } as PublicUrls);
    const photo = { width: 1600, height: 900, alt: 'A hill', variants: [{ href: '/media/7/file?variant=w480', width: 480 }, { href: '/media/7/file?variant=w960', width: 960 }] };
    const lookup = (id: number) => (id === 7 ? photo : undefined);

    it('writes a known item as its file with the variants as srcset, its size and its alt', () => {
      const { bodyHtml } = withBase.renderPost('![](/media/7)', 'markdown', lookup);
      expect(bodyHtml).toBe(
        '<p><img src="/media/7/file" srcset="/media/7/file?variant=w480 480w, /media/7/file?variant=w960 960w, /media/7/file 1600w" sizes="(max-width: 1600px) 100vw, 1600px" width="1600" height="900" alt="A hill" /></p>',
      );
    });

    it("keeps the author's alt, and finds /media/{id}/file and the same under PUBLIC_BASE_URL", () => {
      const { bodyHtml } = withBase.renderPost('<img src="https://blog.example.com/blog/media/7/file" alt="Mine" srcset="https://evil.example/x.png 1w">', 'html', lookup);
      expect(bodyHtml).toContain('alt="Mine"');
      expect(bodyHtml).toContain('src="/media/7/file"');
      expect(bodyHtml).not.toContain('evil');
    });

    it('leaves an unknown item, another host and lookalike paths as written', () => {
      const body = '![](/media/8) ![](https://other.example/media/7) ![](/media/7/file/x) ![](/media/07)';
      const { bodyHtml } = withBase.renderPost(body, 'markdown', lookup);
      expect(bodyHtml).not.toContain('srcset');
      expect(withBase.mediaIdsOf(body, 'markdown')).toEqual([8]);
    });

    it('names the ids a body shows, once each, not those in links, code or plain text', () => {
      expect(withBase.mediaIdsOf('![a](/media/9) ![b](/media/3/file) ![c](/media/9) [link](/media/4) `![](/media/5)`', 'markdown')).toEqual([3, 9]);
      expect(withBase.mediaIdsOf('<img src="/media/2"><script><img src="/media/6"></script>', 'html')).toEqual([2]);
      expect(withBase.mediaIdsOf('![](/media/1)', 'plain')).toEqual([]);
    });
  });
});
