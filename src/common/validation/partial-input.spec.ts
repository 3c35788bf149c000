import { Field, InputType } from '@nestjs/graphql';
import { ApiProperty, DECORATORS } from '@nestjs/swagger';
import { IsDefined, IsString, Length } from 'class-validator';
import { describe, expect, it } from 'vitest';
import type { DomainError } from '../errors/domain-error.js';
import { PartialInputType } from './partial-input.js';
import { REQUIRED, Trim } from './transforms.js';
import { createValidationPipe } from './validation.pipe.js';

@InputType('UnitCreateThingInput')
class CreateThing {
  @Field(() => String)
  @ApiProperty({ minLength: 1, maxLength: 5, example: 'abc' })
  @Length(1, 5, { message: 'name must be 1-5 characters (after trimming)' })
  @IsString()
  @IsDefined(REQUIRED)
  @Trim()
  name: string;

  @Field(() => String)
  @ApiProperty()
  @IsString()
  @IsDefined(REQUIRED)
  owner: string;
}

@InputType('UnitUpdateThingInput')
class UpdateThing extends PartialInputType(CreateThing, ['name']) {}

const problems = (body: object) =>
  createValidationPipe()
    .transform(body, { type: 'body', metatype: UpdateThing })
    .then(
      (value: UpdateThing) => ({ value }),
      (error: DomainError) => ({ errors: error.fieldErrors }),
    );

describe('PartialInputType', () => {
  it('makes the picked fields optional, under the rules (and transforms) of the create input', async () => {
    expect(await problems({})).toEqual({ value: {} });
    expect(await problems({ name: ' abc ' })).toEqual({ value: { name: 'abc' } });
    expect(await problems({ name: 'abcdef' })).toEqual({ errors: [{ field: 'name', message: 'name must be 1-5 characters (after trimming)' }] });
  });

  it('refuses null for a field the create input requires, saying so', async () => {
    expect(await problems({ name: null })).toEqual({ errors: [{ field: 'name', message: 'name must not be null' }] });
  });

  it('leaves out the fields not picked', async () => {
    expect(await problems({ owner: 'me' })).toEqual({ errors: [{ field: 'owner', message: 'owner is not a known or writable field' }] });
  });

  it('describes the picked fields to OpenAPI as the create input does, none required', () => {
    expect(Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, UpdateThing.prototype, 'name')).toMatchObject({ minLength: 1, maxLength: 5, required: false });
    expect(Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, UpdateThing.prototype, 'owner')).toBeUndefined();
  });
});
