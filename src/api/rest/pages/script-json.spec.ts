import { describe, expect, it } from 'vitest';
import { scriptJson } from './script-json.js';

describe('scriptJson', () => {
  const hostile = ['</script><script>alert(1)</script>', '<!-- <script>', '</SCRIPT >', 'a & b > c', 'line\u2028para\u2029end', '"><img src=x onerror=1>'];

  it('writes no character that could end the script element or open a comment, and parses back to the value', () => {
    const value = { headline: hostile.join(' '), keywords: hostile, nested: { list: [1, null, true, 'ok'] } };
    const text = scriptJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
  });

  it('leaves text without those characters as JSON.stringify writes it', () => {
    const value = { name: 'Alice "A" Author', path: '/users/2', é: 'ü' };
    expect(scriptJson(value)).toBe(JSON.stringify(value));
  });
});
