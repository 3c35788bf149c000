import { Transform } from 'class-transformer';

/** Trims strings and leaves anything else for the type check to refuse. */
export const Trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));
