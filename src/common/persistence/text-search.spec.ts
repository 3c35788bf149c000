import { describe, expect, it } from 'vitest';
import { parseTextQuery, toFts5Match, toWebSearch } from './text-search.js';

describe('parseTextQuery', () => {
  it('reads words, "phrases" and -exclusions', () => {
    expect(parseTextQuery('run "quick brown  fox" -gryphon -"big cat"', 8)).toEqual({ required: ['run', 'quick brown fox'], excluded: ['gryphon', 'big cat'] });
  });

  it('takes an unbalanced quote as a phrase to the end, and a quote inside a word as a break', () => {
    expect(parseTextQuery('a "b c', 8)).toEqual({ required: ['a', 'b c'], excluded: [] });
    expect(parseTextQuery('ab"cd', 8)).toEqual({ required: ['ab', 'cd'], excluded: [] });
  });

  it('has no query without a required word: empty, punctuation, only exclusions', () => {
    for (const text of ['', '   ', '-', '*', '( )', '""', '-word', '-"a b" -c']) expect(parseTextQuery(text, 8), text).toBeNull();
  });
});

describe('normalizing a search', () => {
  it('takes each word and phrase once, whatever its case or punctuation', () => {
    expect(parseTextQuery(Array(50).fill('the').join(' '), 8)).toEqual({ required: ['the'], excluded: [] });
    expect(parseTextQuery('The THE the, "Big Cat" "big  cat" -dog -Dog -"a b" -"A B"', 8)).toEqual({ required: ['The', 'Big Cat'], excluded: ['dog', 'a b'] });
    // A word to find and the same word excluded are two terms (nothing matches them both).
    expect(parseTextQuery('cat -cat', 8)).toEqual({ required: ['cat'], excluded: ['cat'] });
  });

  it('keeps no more than maxWords words: the words to find first, a phrase cut at the bound', () => {
    expect(parseTextQuery('a b c d e f', 3)).toEqual({ required: ['a', 'b', 'c'], excluded: [] });
    expect(parseTextQuery('a -x "b c d e" f', 3)).toEqual({ required: ['a', 'b c'], excluded: [] });
    expect(parseTextQuery('a b -x -y -z', 4)).toEqual({ required: ['a', 'b'], excluded: ['x', 'y'] });
    // A phrase longer than the bound alone, and words glued by punctuation (NEAR(a is two words).
    expect(parseTextQuery('"one two three four"', 2)).toEqual({ required: ['one two'], excluded: [] });
    expect(parseTextQuery('x-x-x-x-x-x', 3)).toEqual({ required: ['x-x-x'], excluded: [] });
    // However a text of 200 characters repeats itself, a bounded number of words.
    for (const text of ['the '.repeat(50), '"' + 'the '.repeat(50), 'a-'.repeat(100), Array.from({ length: 60 }, (_, i) => `w${i}`).join(' ')]) {
      const query = parseTextQuery(text, 8)!;
      const words = [...query.required, ...query.excluded].join(' ').match(/[\p{L}\p{N}]+/gu) ?? [];
      expect(words.length, text).toBeLessThanOrEqual(8);
    }
  });
});

describe('the dialects’ syntax', () => {
  const query = parseTextQuery('AND NEAR(a b) title:x "x y" -or', 16)!;

  it('quotes every term for websearch_to_tsquery, so or is a word', () => {
    expect(toWebSearch(query)).toBe('"AND" "NEAR(a" "b)" "title:x" "x y" -"or"');
  });

  it('quotes every term for FTS5: operators and column filters are text', () => {
    expect(toFts5Match(query)).toBe('("AND" AND "NEAR(a" AND "b)" AND "title:x" AND "x y") NOT "or"');
  });
});
