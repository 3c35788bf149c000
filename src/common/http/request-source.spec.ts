import { describe, expect, it } from 'vitest';
import { requestSource, withRequestSource } from './request-source.js';

const source = (id: string) => ({ ip: '203.0.113.1', headers: {}, id });

describe('withRequestSource', () => {
  it('gives the work its source, through its promises, and none to work outside it', async () => {
    const { result, release } = withRequestSource(source('a'), async () => {
      await Promise.resolve();
      return requestSource.getStore()?.id;
    });
    expect(await result).toBe('a');
    expect(requestSource.getStore()).toBeUndefined();
    release();
  });

  it('keeps the store while any work runs, and disables it once the last is released (twice is once)', async () => {
    const first = withRequestSource(source('a'), () => new Promise<string | undefined>((resolve) => setTimeout(() => resolve(requestSource.getStore()?.id), 5)));
    const second = withRequestSource(source('b'), async () => requestSource.getStore()?.id);
    second.release();
    second.release();
    // The first still runs: its source is still there after the second was released.
    expect(await first.result).toBe('a');
    first.release();
    let seen: string | undefined = 'unset';
    await new Promise<void>((resolve) => setTimeout(() => ((seen = requestSource.getStore()?.id), resolve()), 1));
    expect(seen).toBeUndefined();
    expect(await withRequestSource(source('c'), async () => requestSource.getStore()?.id).result).toBe('c');
  });
});
