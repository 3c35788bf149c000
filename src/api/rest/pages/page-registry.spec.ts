import { describe, expect, it } from 'vitest';
import type { ListItem } from '../../../common/resource/resource.js';
import type { ItemPage, ListPage } from './page.js';
import { PageRegistry } from './page-registry.js';

const own: ItemPage = { kind: 'post', title: () => 'own', body: () => '<p>own</p>' };
const ownList: ListPage = { kind: 'post', title: 'Posts', body: () => '<ul></ul>' };
const gizmos = { kind: 'gizmo', plural: 'gizmos' };

describe('PageRegistry', () => {
  it('hands out the page listed for a kind, item and list apart', () => {
    const registry = new PageRegistry([own], [ownList]);
    expect(registry.item({ kind: 'post', plural: 'posts' })).toBe(own);
    expect(registry.list({ kind: 'post', plural: 'posts' })).toBe(ownList);
  });

  it('refuses two pages for one kind', () => {
    expect(() => new PageRegistry([own, { ...own }], [])).toThrow('Two HTML pages for the kind post');
  });

  it('gives a kind without a page of its own a generic one: its fields as text (escaped), not its links, the same page each time', async () => {
    const registry = new PageRegistry([own], [ownList]);
    const page = registry.item(gizmos);
    expect(registry.item(gizmos)).toBe(page);
    const view: ListItem = { id: 7, name: '<b>cog</b>', sizes: [1, 2], _links: { self: { href: '/gizmos/7' } } };
    expect(page.title(view)).toBe('Gizmo 7');
    const body = await page.body(view, null);
    expect(body).toBe('<article class="gizmo">\n<h1>Gizmo 7</h1>\n<dl>\n<dt>id</dt><dd>7</dd>\n<dt>name</dt><dd>&lt;b&gt;cog&lt;/b&gt;</dd>\n<dt>sizes</dt><dd>1, 2</dd>\n</dl>\n</article>');
  });

  it('and a generic list: a link to each item, titled by the plural, with the next page', async () => {
    const list = new PageRegistry([], []).list(gizmos);
    expect(list.title).toBe('Gizmos');
    const body = await list.body([{ id: 1, _links: { self: { href: '/gizmos/1' } } }], '/gizmos?cursor=x');
    expect(body).toBe('<h1>Gizmos</h1>\n<ul class="gizmos">\n<li><a href="/gizmos/1">/gizmos/1</a></li>\n</ul>\n<p><a rel="next" href="/gizmos?cursor=x">Next page</a></p>');
  });
});
