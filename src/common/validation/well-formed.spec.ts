import { describe, expect, it } from 'vitest';
import { findStringProblem, HOLDS_CONTROL, HOLDS_NUL, isWellFormed, NOT_WELL_FORMED, stringProblem, textProblem } from './well-formed.js';

describe('well-formed strings', () => {
  it('tells lone surrogates from pairs', () => {
    expect(isWellFormed('plain, é, \ud83d\ude00')).toBe(true);
    expect(isWellFormed('\udc00x')).toBe(false);
    expect(isWellFormed('x\ud800')).toBe(false);
    expect(isWellFormed('\ude00\ud83d')).toBe(false);
  });

  it('finds the first bad string or key with its path, controls only where asked', () => {
    const strict = (text: string) => stringProblem(text, true);
    expect(findStringProblem({ a: 'ok', b: [{ c: '\udc00' }] }, strict)).toEqual({ field: 'b.0.c', message: NOT_WELL_FORMED });
    expect(findStringProblem({ ['k\ud800']: 1 }, strict, 'input')).toEqual({ field: 'input.k\ud800', message: NOT_WELL_FORMED });
    expect(findStringProblem({ a: 'x\u0000' }, strict)?.message).toMatch(/NUL/);
    expect(findStringProblem({ a: 'x\u0000' }, (text) => stringProblem(text, false))).toBeUndefined();
    expect(findStringProblem('\udc00', strict)).toEqual({ field: '', message: NOT_WELL_FORMED });
    expect(findStringProblem({ a: 1, b: null, c: [true] }, strict)).toBeUndefined();
  });

  it('the text rule: NUL, the other C0 controls and DEL are refused; tab, line feed and carriage return are text', () => {
    expect(textProblem('a\u0000b')).toBe(HOLDS_NUL);
    for (const control of ['\u0001', '\u0008', '\u000b', '\u000c', '\u000e', '\u001f', '\u007f']) expect(textProblem(`a${control}`), control.charCodeAt(0).toString(16)).toBe(HOLDS_CONTROL);
    expect(textProblem('a\tb\nc\r\nd é \u0085 \u00a0 😀')).toBeUndefined();
    expect(textProblem('\udc00\ud800')).toBe(NOT_WELL_FORMED);
  });

  it("walks Fastify's query objects (a prototype made by Object.create(null)), never class instances", () => {
    const Empty = function () {} as unknown as { new (): Record<string, unknown>; prototype: object };
    Empty.prototype = Object.create(null) as object;
    const query = new Empty();
    query.q = '\u0000x';
    expect(findStringProblem(query, textProblem)).toEqual({ field: 'q', message: HOLDS_NUL });
    expect(findStringProblem(Object.assign(Object.create(null) as object, { q: '\u0001' }), textProblem)).toEqual({ field: 'q', message: HOLDS_CONTROL });
    class Server {
      secret = '\u0000';
      method() {}
    }
    expect(findStringProblem(new Server(), textProblem)).toBeUndefined();
    expect(findStringProblem(new Map([['a', '\u0000']]), textProblem)).toBeUndefined();
  });
});
