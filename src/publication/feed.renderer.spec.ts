import { describe, expect, it } from 'vitest';
import { newTestService } from '../../test/support/unit.js';
import { expectValidAtom, expectWellFormed } from '../../test/support/feeds.js';
import { loadConfig } from '../config/app-config.js';
import { Post } from '../posts/post.entity.js';
import { POST_RESOURCE } from '../posts/post.resource.js';
import { UsersService } from '../users/users.service.js';
import { FeedRenderer, feedText } from './feed.renderer.js';
import { PublicUrls } from './public-urls.js';

// The feed renderer alone: what no door lets in (control characters, lone surrogates) still never breaks a feed.

const urls = new PublicUrls(loadConfig({ NODE_ENV: 'test', JWT_SECRET: 'x'.repeat(48), DATABASE_URL: 'sqlite::memory:', PUBLIC_BASE_URL: 'https://blog.example.com' }));

function post(fields: Partial<Post> = {}): Post {
  return Object.assign(new Post(), {
    id: 7, title: 'Hello', slug: 'hello', body: 'Text', bodyHtml: '<p>Text</p>', excerpt: 'Text', authorId: 2, status: 'published',
    publishAt: null, publishedAt: new Date('2026-01-02T03:04:05Z'), trashedAt: null, createdAt: new Date('2026-01-01T00:00:00Z'),
    updatedAt: new Date('2026-01-03T00:00:00Z'), version: 1, tags: ['news'], tagIds: [1], ...fields,
  });
}

async function renderer(): Promise<FeedRenderer> {
  const unit = await newTestService(FeedRenderer, { real: [urls] });
  unit.mock(UsersService).namesOf.mockResolvedValue(new Map([[2, { name: 'Alice \u0007Author', avatarUrl: null }]]));
  return unit.service;
}

describe('FeedRenderer', () => {
  it('drops what XML 1.0 cannot carry from every text, so Atom stays valid and RSS well-formed', async () => {
    const hostile = post({ title: 'Bell\u0001 ]]> <b> & \uD800 end\uFFFF', excerpt: 'a\u001Fb', bodyHtml: '<p>\u0008x</p>', tags: ['news'] });
    const list = POST_RESOURCE.list([hostile], '/feed?cursor=abc');
    const feeds = await renderer();
    const atom = await feeds.render('atom', list, '/feed');
    await expectValidAtom(atom.body);
    expect(atom.body).toContain('<title type="text">Bell ]]&gt; &lt;b&gt; &amp;  end</title>');
    expect(atom.body).toContain('<name>Alice Author</name>');
    const rss = await feeds.render('rss', list, '/feed');
    await expectWellFormed(rss.body);
    expect(rss.body).toContain('<title>Bell ]]&gt; &lt;b&gt; &amp;  end</title>');
  });

  it('links are absolute, the next page included; the entry id is a tag URI of the host, the creation day and the id', async () => {
    const feeds = await renderer();
    const document = await feeds.render('atom', POST_RESOURCE.list([post()], '/feed?limit=1&cursor=abc'), '/feed?limit=1&cursor=xyz');
    expect(document.next).toBe('https://blog.example.com/feed?limit=1&cursor=abc');
    expect(document.body).toContain('<id>https://blog.example.com/feed?limit=1</id>');
    expect(document.body).toContain('<link rel="self" type="application/atom+xml" href="https://blog.example.com/feed?limit=1&amp;cursor=xyz"/>');
    expect(document.body).toContain('<id>tag:blog.example.com,2026-01-01:post:7</id>');
    expect(document.lastModified).toEqual(new Date('2026-01-03T00:00:00Z'));
  });

  it('a language is the feed\'s in every format (Atom xml:lang, RSS <language>, JSON Feed language); Atom stays valid', async () => {
    const feeds = await renderer();
    const list = POST_RESOURCE.list([post()], null);
    const atom = await feeds.render('atom', list, '/feed', 'de-CH');
    await expectValidAtom(atom.body);
    expect(atom.body).toMatch(/^<\?xml[^>]*\?><feed xmlns="http:\/\/www\.w3\.org\/2005\/Atom" xml:lang="de-CH">/);
    const rss = await feeds.render('rss', list, '/feed', 'de-CH');
    await expectWellFormed(rss.body);
    expect(rss.body).toContain('<description>The newest posts</description><language>de-CH</language>');
    expect(JSON.parse((await feeds.render('jsonfeed', list, '/feed', 'de-CH')).body)).toMatchObject({ language: 'de-CH' });
  });

  it('without a language (a list of every translation), no format names one', async () => {
    const feeds = await renderer();
    const list = POST_RESOURCE.list([post()], null);
    const atom = await feeds.render('atom', list, '/feed');
    await expectValidAtom(atom.body);
    expect(atom.body).not.toContain('xml:lang');
    expect((await feeds.render('rss', list, '/feed')).body).not.toContain('<language>');
    expect(JSON.parse((await feeds.render('jsonfeed', list, '/feed')).body)).not.toHaveProperty('language');
  });

  it('feedText escapes & (xmlbuilder2 keeps entity-shaped text) and drops C0 controls but tab, newline and return', () => {
    expect(feedText('&amp;\u0001\t\n\r')).toBe('&amp;amp;\t\n\r');
  });
});
