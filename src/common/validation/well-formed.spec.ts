import { describe, expect, it } from 'vitest';
import { findStringProblem, isWellFormed, NOT_WELL_FORMED, stringProblem } from './well-formed.js';

describe('well-formed strings', () => {
  it('tells lone surrogates from pairs', () => {
    expect(isWellFormed('plain, é, \ud83d\ude00')).toBe(true);
    expect(isWellFormed('\udc00x')).toBe(false);
    expect(isWellFormed('x\ud800')).toBe(false);
    expect(isWellFormed('\ude00\ud83d')).toBe(false);
  });

  it('finds the first bad string or key with its path, NUL only where asked', () => {
    const strict = (text: string) => stringProblem(text, true);
    expect(findStringProblem({ a: 'ok', b: [{ c: '\udc00' }] }, strict)).toEqual({ field: 'b.0.c', message: NOT_WELL_FORMED });
    expect(findStringProblem({ ['k\ud800']: 1 }, strict, 'input')).toEqual({ field: 'input.k\ud800', message: NOT_WELL_FORMED });
    expect(findStringProblem({ a: 'x\u0000' }, strict)?.message).toMatch(/NUL/);
    expect(findStringProblem({ a: 'x\u0000' }, (text) => stringProblem(text, false))).toBeUndefined();
    expect(findStringProblem('\udc00', strict)).toEqual({ field: '', message: NOT_WELL_FORMED });
    expect(findStringProblem({ a: 1, b: null, c: [true] }, strict)).toBeUndefined();
  });
});
