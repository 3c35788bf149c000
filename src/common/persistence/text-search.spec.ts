import { describe, expect, it } from 'vitest';
import { parseTextQuery, toFts5Match, toWebSearch } from './text-search.js';

describe('parseTextQuery', () => {
  it('reads words, "phrases" and -exclusions', () => {
    expect(parseTextQuery('run "quick brown  fox" -gryphon -"big cat"')).toEqual({ required: ['run', 'quick brown fox'], excluded: ['gryphon', 'big cat'] });
  });

  it('takes an unbalanced quote as a phrase to the end, and a quote inside a word as a break', () => {
    expect(parseTextQuery('a "b c')).toEqual({ required: ['a', 'b c'], excluded: [] });
    expect(parseTextQuery('ab"cd')).toEqual({ required: ['ab', 'cd'], excluded: [] });
  });

  it('has no query without a required word: empty, punctuation, only exclusions', () => {
    for (const text of ['', '   ', '-', '*', '( )', '""', '-word', '-"a b" -c']) expect(parseTextQuery(text), text).toBeNull();
  });
});

describe('the dialects’ syntax', () => {
  const query = parseTextQuery('AND NEAR(a b) title:x "x y" -or')!;

  it('quotes every term for websearch_to_tsquery, so or is a word', () => {
    expect(toWebSearch(query)).toBe('"AND" "NEAR(a" "b)" "title:x" "x y" -"or"');
  });

  it('quotes every term for FTS5: operators and column filters are text', () => {
    expect(toFts5Match(query)).toBe('("AND" AND "NEAR(a" AND "b)" AND "title:x" AND "x y") NOT "or"');
  });
});
