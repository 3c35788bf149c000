import { Transform } from 'class-transformer';

/** Trims strings and leaves anything else for the type check to refuse. */
export const Trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

/**
 * For `@ValidateIf`: an optional field that is not nullable. `{"title": null}` (or GraphQL's
 * `title: null`) is then refused as not a string instead of reaching a NOT NULL column.
 */
export const OMITTED_OR_NOT_NULL = (_: object, value: unknown): boolean => value !== undefined;
