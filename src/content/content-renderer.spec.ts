import { describe, expect, it, vi } from 'vitest';
import type { PublicUrls } from '../publication/public-urls.js';
import { ContentEngine } from './content-engine.js';
import { ContentRenderer } from './content-renderer.js';

const urls = { origin: 'https://blog.example.com' } as PublicUrls;

describe('ContentRenderer (the engine loaded on first use)', () => {
  const renderer = new ContentRenderer(urls);
  const engine = new ContentEngine(urls);

  it('renders as the engine does, for every format and for comments', async () => {
    const body = '# Hi\n\n[out](https://example.org) <script>x</script> ![](/media/3)';
    for (const format of ['markdown', 'html', 'plain'] as const) {
      expect(await renderer.renderPost(body, format)).toEqual(engine.renderPost(body, format));
      expect(await renderer.mediaIdsOf(body, format)).toEqual(engine.mediaIdsOf(body, format));
    }
    expect(await renderer.renderComment(body)).toBe(engine.renderComment(body));
    expect(renderer.excerptOf(await renderer.renderPost(body, 'markdown'))).toBe(engine.excerptOf(engine.renderPost(body, 'markdown')));
  });

  it('makes one engine, with its URLs', async () => {
    const first = await renderer.engine();
    expect(await renderer.engine()).toBe(first);
    expect(first.renderComment('[a](https://blog.example.com/x) [b](https://example.org)')).toBe(engine.renderComment('[a](https://blog.example.com/x) [b](https://example.org)'));
  });

  it('prepares the engine for Markdown, HTML and a format not known yet; plain text needs none', async () => {
    for (const [format, loads] of [['plain', false], ['markdown', true], ['html', true], [undefined, true]] as const) {
      const fresh = new ContentRenderer(urls);
      const engineOf = vi.spyOn(fresh, 'engine');
      await fresh.prepare(format);
      expect(engineOf.mock.calls.length, String(format)).toBe(loads ? 1 : 0);
    }
  });
});
