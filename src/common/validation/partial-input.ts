import type { Type } from '@nestjs/common';
import { InputType, PartialType, PickType } from '@nestjs/graphql';
import { ApiProperty, DECORATORS } from '@nestjs/swagger';

/**
 * The changes to a resource, derived from the input that creates it: the `keys` of `Create`,
 * each optional but not nullable (`{"title": null}` is refused, never stored), with the same
 * rules, for a class that is both a REST body and a GraphQL input.
 *
 * `@nestjs/graphql`'s PickType and PartialType carry the GraphQL fields and the class-validator
 * and class-transformer rules; the OpenAPI properties are added as `@nestjs/swagger`'s
 * PartialType adds them (not required). Each package's mapped types know only their own
 * metadata, so neither alone yields a class that is both.
 */
export function PartialInputType<T, K extends keyof T & string>(Create: Type<T>, keys: readonly K[]): Type<Partial<Pick<T, K>>> {
  const Changes = PartialType(PickType(Create, keys, InputType), { decorator: InputType, skipNullProperties: false });
  for (const key of keys) {
    const property: object = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, Create.prototype, key) ?? {};
    ApiProperty({ ...property, required: false })(Changes.prototype, key);
  }
  return Changes;
}
