import { Transform } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { describe, expect, it } from 'vitest';
import type { DomainError } from '../errors/domain-error.js';
import { createValidationPipe } from './validation.pipe.js';

class PageQuery {
  @Max(100)
  @Min(1)
  @IsInt()
  @IsOptional()
  first?: number;

  @IsString({ each: true })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.split(',') : value))
  @IsOptional()
  tags?: string[];
}

describe('the validation pipe on flat inputs it has validated before', () => {
  const pipe = createValidationPipe();
  const run = (value: unknown) =>
    pipe.transform(value, { type: 'query', metatype: PageQuery }).then(
      (result: PageQuery) => ({ result }),
      (error: DomainError) => ({ errors: error.fieldErrors }),
    );

  it('answers an equal input with an equal instance of the class, never the same object', async () => {
    const first = (await run({ first: 5, tags: 'a,b' })) as { result: PageQuery };
    const again = (await run({ first: 5, tags: 'a,b' })) as { result: PageQuery };
    expect(again.result).toBeInstanceOf(PageQuery);
    expect(again.result).toEqual(first.result);
    expect(again.result).not.toBe(first.result);
    // What one caller does with its instance reaches no other.
    again.result.first = 99;
    again.result.tags!.push('c');
    const third = (await run({ first: 5, tags: 'a,b' })) as { result: PageQuery };
    expect(third.result).toEqual(first.result);
  });

  it('refuses a refused input every time, and tells equal-looking values of other types apart', async () => {
    const refusal = { errors: [{ field: 'first', message: expect.stringContaining('first') }] };
    expect(await run({ first: 500 })).toEqual(refusal);
    expect(await run({ first: 500 })).toEqual(refusal);
    expect(await run({ first: 5 })).toEqual({ result: expect.objectContaining({ first: 5 }) });
    expect(await run({ first: '5' })).toEqual({ errors: [{ field: 'first', message: expect.any(String) }] });
    expect(await run({ first: 5, extra: 1 })).toEqual({ errors: [{ field: 'extra', message: 'extra is not a known or writable field' }] });
  });
});
