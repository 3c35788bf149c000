/**
 * Eta templates of the HTML representations. `<%= %>` escapes (autoEscape is on), so user
 * text can never become markup; `<%~ %>` (raw) is used only for the layout's own body slot.
 */
export const LAYOUT = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title><%= it.title %> · Blog</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#222}
a{color:#0b57d0}header.byline{display:flex;align-items:center;gap:.5rem;color:#555}
img.avatar{width:2rem;height:2rem;border-radius:50%;object-fit:cover}
.body{white-space:pre-wrap}ol.comments{padding-left:1.2rem}ol.comments li{margin:.75rem 0}
nav{margin-bottom:1.5rem;font-size:.9rem}time{color:#777;font-size:.85rem}
</style>
</head>
<body>
<nav><a href="/posts">Posts</a> · <a href="/users">Users</a> · <a href="/docs">API</a> · <a href="/graphql">GraphQL</a></nav>
<%~ it.body %>
</body>
</html>`;

const AVATAR = `<% if (it.author && it.author.avatarUrl) { %><img class="avatar" src="<%= it.author.avatarUrl %>" alt="<%= it.author.name %>"><% } %>`;

export const POST_PAGE = `<article class="post">
<h1><%= it.post.title %></h1>
<header class="byline">${AVATAR}<span>by <a rel="author" href="<%= it.post._links.author.href %>"><%= it.author ? it.author.name : 'unknown' %></a></span> <time datetime="<%= it.post.createdAt %>"><%= it.post.createdAt %></time></header>
<div class="body"><%= it.post.body %></div>
</article>
<section>
<h2>Comments (<%= it.comments.length %><%= it.moreComments ? '+' : '' %>)</h2>
<ol class="comments">
<% it.comments.forEach(function (c) { %><li id="comment-<%= c.id %>"><strong><a href="<%= c._links.author.href %>"><%= c.authorName %></a></strong> <time datetime="<%= c.createdAt %>"><%= c.createdAt %></time><div class="body"><%= c.body %></div><a href="<%= c._links.self.href %>">link</a></li>
<% }) %></ol>
<% if (it.moreComments) { %><p><a href="<%= it.post._links.comments.href %>">All comments</a></p><% } %>
</section>`;

export const COMMENT_PAGE = `<article class="comment">
<header class="byline">${AVATAR}<span><a rel="author" href="<%= it.comment._links.author.href %>"><%= it.author ? it.author.name : 'unknown' %></a> on <a href="<%= it.comment._links.post.href %>">post <%= it.comment.postId %></a></span> <time datetime="<%= it.comment.createdAt %>"><%= it.comment.createdAt %></time></header>
<div class="body"><%= it.comment.body %></div>
</article>`;

export const USER_PAGE = `<article class="user">
<h1><% if (it.user.avatarUrl) { %><img class="avatar" src="<%= it.user.avatarUrl %>" alt=""> <% } %><%= it.user.name %></h1>
<p><%= it.user.role %> · joined <time datetime="<%= it.user.createdAt %>"><%= it.user.createdAt %></time></p>
<p><a href="<%= it.user._links.posts.href %>">Posts by <%= it.user.name %></a></p>
</article>`;

export const POST_LIST = `<h1><%= it.title %></h1>
<ul class="posts">
<% it.items.forEach(function (p) { %><li><a href="<%= p._links.self.href %>"><%= p.title %></a> by <a href="<%= p._links.author.href %>"><%= p.authorName %></a> <time datetime="<%= p.createdAt %>"><%= p.createdAt %></time></li>
<% }) %></ul>
<% if (it.nextHref) { %><p><a rel="next" href="<%= it.nextHref %>">Next page</a></p><% } %>`;

export const COMMENT_LIST = `<h1><%= it.title %></h1>
<ol class="comments">
<% it.items.forEach(function (c) { %><li><strong><a href="<%= c._links.author.href %>"><%= c.authorName %></a></strong> <time datetime="<%= c.createdAt %>"><%= c.createdAt %></time><div class="body"><%= c.body %></div><a href="<%= c._links.self.href %>">link</a></li>
<% }) %></ol>
<% if (it.nextHref) { %><p><a rel="next" href="<%= it.nextHref %>">Next page</a></p><% } %>`;

export const USER_LIST = `<h1><%= it.title %></h1>
<ul class="users">
<% it.items.forEach(function (u) { %><li><a href="<%= u._links.self.href %>"><%= u.name %></a> (<%= u.role %>)</li>
<% }) %></ul>
<% if (it.nextHref) { %><p><a rel="next" href="<%= it.nextHref %>">Next page</a></p><% } %>`;
