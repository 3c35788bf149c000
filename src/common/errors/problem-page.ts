import type { ProblemDetails } from './problem-details.js';

export const PROBLEM_PAGE_CONTENT_TYPE = 'text/html; charset=utf-8';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char]);

/**
 * The problem as a small page for a browser: status, title, detail, code and field errors, all
 * escaped. Like every page it links the feed (CONTRACT §13); relative, as its navigation is:
 * errors are written below the settings (an error before configuration is read has a page too).
 */
export function renderProblemPage(problem: ProblemDetails): string {
  const fields = (problem.errors ?? []).map((error) => `<li><code>${escapeHtml(error.field)}</code>: ${escapeHtml(error.message)}</li>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${problem.status} ${escapeHtml(problem.title)} · Blog</title>
<link rel="alternate" type="application/atom+xml" title="Blog" href="/feed">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem;color:#222}a{color:#0b57d0}code{color:#555}</style>
</head>
<body>
<nav><a href="/posts">Posts</a> · <a href="/users">Users</a> · <a href="/docs">API</a></nav>
<main class="problem">
<h1>${problem.status} ${escapeHtml(problem.title)}</h1>
<p>${escapeHtml(problem.detail)}</p>
${fields ? `<ul class="errors">${fields}</ul>\n` : ''}<p><code>${escapeHtml(problem.code)}</code> · <code>${escapeHtml(problem.instance)}</code></p>
</main>
</body>
</html>`;
}
