import { describe, expect, it } from 'vitest';
import { DomainError } from '../common/errors/domain-error.js';
import { publishAtOf } from './post-change.js';

const NOW = new Date('2030-01-01T00:00:00Z');
const LATER = new Date('2030-01-02T00:00:00Z');
const EARLIER = new Date('2029-12-31T00:00:00Z');

describe('publishAtOf', () => {
  it('keeps a future publishAt given with in_review, or the one it had; null clears it', () => {
    expect(publishAtOf('in_review', LATER, null, NOW)).toEqual(LATER);
    expect(publishAtOf('in_review', undefined, LATER, NOW)).toEqual(LATER);
    expect(publishAtOf('in_review', undefined, null, NOW)).toBeNull();
    expect(publishAtOf('in_review', null, LATER, NOW)).toBeNull();
    // A kept time may have passed while it waited: approval publishes it at once then.
    expect(publishAtOf('in_review', undefined, EARLIER, NOW)).toEqual(EARLIER);
  });

  it('refuses a publishAt in the past given with in_review, and any with a draft or a publication', () => {
    expect(() => publishAtOf('in_review', EARLIER, null, NOW)).toThrow(DomainError);
    expect(() => publishAtOf('draft', LATER, null, NOW)).toThrow(/"scheduled" or "in_review"/);
    expect(() => publishAtOf('published', LATER, null, NOW)).toThrow(DomainError);
    expect(publishAtOf('draft', undefined, LATER, NOW)).toBeNull();
  });

  it('still needs a future time for a schedule', () => {
    expect(publishAtOf('scheduled', undefined, LATER, NOW)).toEqual(LATER);
    expect(() => publishAtOf('scheduled', undefined, null, NOW)).toThrow(/needs publishAt/);
  });
});
