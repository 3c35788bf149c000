import { describe, expect, it } from 'vitest';
import { malformedQueryParameter } from './query-encoding.js';

describe('malformedQueryParameter', () => {
  it('accepts percent-encoded UTF-8, and no query at all', () => {
    expect(malformedQueryParameter('/posts')).toBeUndefined();
    expect(malformedQueryParameter('/posts?limit=2&cursor=djE6NA')).toBeUndefined();
    expect(malformedQueryParameter('/posts?q=%C3%A9t%C3%A9+%F0%9F%98%80&flag')).toBeUndefined();
  });

  it('names the first parameter that is not', () => {
    expect(malformedQueryParameter('/posts?limit=2&cursor=%ED%B0%80')).toBe('cursor');
    expect(malformedQueryParameter('/posts?a=%zz&b=%E9')).toBe('a');
    expect(malformedQueryParameter('/posts?a=1&b=100%')).toBe('b');
    expect(malformedQueryParameter('/posts?%FF=1')).toBe('%FF');
    expect(malformedQueryParameter('/posts?na%C3%AFve=%C0%AF')).toBe('naïve');
  });
});
