import { Transform } from 'class-transformer';
import { isDate, Matches, ValidateBy, type ValidationOptions } from 'class-validator';

/** Trims strings and leaves anything else for the type check to refuse. */
export const Trim = () => Transform(({ value }) => (typeof value === 'string' ? value.trim() : value));

/**
 * E-mail addresses as stored and compared: NFKC-normalized (fullwidth letters and decomposed
 * twins become one address), trimmed and lower-cased.
 */
export const normalizeEmail = (value: string): string => value.normalize('NFKC').trim().toLowerCase();
export const NormalizeEmail = () => Transform(({ value }) => (typeof value === 'string' ? normalizeEmail(value) : value));

/** Refuses control and invisible formatting characters (bidi overrides, zero-width joiners), which make look-alike addresses. */
export const NoInvisibleCharacters = (message: string) => Matches(/^[^\p{Cc}\p{Cf}\p{Zl}\p{Zp}]*$/u, { message });

/**
 * For `@ValidateIf`: an optional field that is not nullable. `{"title": null}` (or GraphQL's
 * `title: null`) is then refused as not a string instead of reaching a NOT NULL column.
 */
export const OMITTED_OR_NOT_NULL = (_: object, value: unknown): boolean => value !== undefined;

/**
 * At most `max` characters counted as the database counts them (Unicode code points), placed
 * above @Length / @MaxLength: class-validator does not count U+FE0E/U+FE0F variation selectors,
 * so a title of 150 "a\uFE0F" passed as 150 characters and PostgreSQL's varchar(200) refused
 * it with an error (500).
 */
export function MaxChars(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxChars',
      constraints: [max],
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || value.length <= max || [...value].length <= max,
        defaultMessage: () => `$property must be shorter than or equal to ${max} characters`,
      },
    },
    options,
  );
}

/**
 * The message of a missing required field, the same for every input; a null one is named as such
 * (an update input's optional fields refuse null with these rules too).
 */
export const REQUIRED: ValidationOptions = {
  message: ({ property, value }) => (value === null ? `${property} must not be null` : `${property} is required`),
};

/**
 * The date-times the service takes, for the OpenAPI document: RFC 3339 (`format: date-time`) with
 * an upper-case T and Z, seconds, and no leap second (which a Date cannot hold).
 */
/** A trimmed text, for the OpenAPI document: something is left after trimming (a character other than white space). */
export const NOT_BLANK_PATTERN = '\\S';

/** A name a slug is made of, for the OpenAPI document: it holds a letter or digit a-z, 0-9 (the slug's only characters). */
export const SLUGGABLE_PATTERN = '[A-Za-z0-9]';

export const DATE_TIME_PATTERN = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,9})?(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$';

/** An ISO 8601 date-time string becomes a Date; anything else stays as it is, for the type check to refuse. */
export const toDate = ({ value }: { value: unknown }) => {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) return value;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date;
};

/** The first and the last instant a date-time may name: years 0001-9999, as RFC 3339 writes them (and both databases hold them). */
export const EARLIEST_DATE_TIME = new Date('0001-01-01T00:00:00Z').getTime();
export const LATEST_DATE_TIME = new Date('9999-12-31T23:59:59.999Z').getTime();

/**
 * A Date within years 0001-9999 (UTC), in place of class-validator's IsDate: a GraphQL DateTime
 * takes `-271821-04-20T00:00:00Z`, and year 0 passes the REST pattern, neither of which
 * PostgreSQL holds as sent (an error, 500, or a year off).
 */
export function IsDateTime(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDateTime',
      validator: {
        validate: (value: unknown) => isDate(value) && value.getTime() >= EARLIEST_DATE_TIME && value.getTime() <= LATEST_DATE_TIME,
        defaultMessage: () => '$property must be a date-time between years 0001 and 9999',
      },
    },
    options,
  );
}
