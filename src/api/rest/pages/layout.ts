import { compileTemplate } from './template.js';

/**
 * The document around every page's body: its language (`it.lang`, default `en`), its title, what the page adds to the head (`it.head`,
 * HTML built by the page's own template), the link to the feed (`it.feedHref`, absolute), the
 * styles, the site's navigation.
 */
export const LAYOUT = compileTemplate(`<!doctype html>
<html lang="<%= it.lang || 'en' %>">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · Blog</title>
<link rel="alternate" type="application/atom+xml" title="Blog" href="<%= it.feedHref %>">
<% if (it.head) { %><%~ it.head %>
<% } %><style>
body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#222}
a{color:#0b57d0}header.byline{display:flex;align-items:center;gap:.5rem;color:#555}
img.avatar{width:2rem;height:2rem;border-radius:50%;object-fit:cover}
figure.cover{margin:1rem 0}figure.cover img{max-width:100%;height:auto}
.body{white-space:pre-wrap}.byline .reading{color:#777;font-size:.85rem}ol.comments{padding-left:1.2rem}ol.comments li{margin:.75rem 0}
nav{margin-bottom:1.5rem;font-size:.9rem}time{color:#777;font-size:.85rem}
nav.links{margin-top:2rem}nav.links h2{font-size:1rem}nav.links code{color:#777}
</style>
</head>
<body>
<nav><a href="/posts">Posts</a> · <a href="/users">Users</a> · <a href="/docs">API</a> · <a href="/graphql">GraphQL</a></nav>
<%~ it.body %>
</body>
</html>`);

/** Every `_links` entry of a resource page as an `<a rel href>` (`it.links`: eachLink's list), whatever its page shows. */
export const LINKS = compileTemplate(`<nav class="links" aria-label="Links"><h2>Links</h2><ul>
<% it.links.forEach(function ({ rel, link }) { %><li><a rel="<%= rel %>"<% if (link.hreflang) { %> hreflang="<%= link.hreflang %>"<% } %> href="<%= link.href %>"><%= link.name || link.hreflang || rel %></a> <code><%= link.href %></code></li>
<% }) %></ul></nav>`);
