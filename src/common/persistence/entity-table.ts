import type { EntityMetadata } from 'typeorm';
import { compileMapper } from './codegen.js';

export interface TableColumn {
  /** The entity's property. */
  property: string;
  /** The column in the database. */
  name: string;
  /** Stored as a timestamp: read back as a Date whichever the driver. */
  timestamp: boolean;
  /** The `@VersionColumn`: the ETag, never part of a representation. */
  version: boolean;
  /** Declared `select: false` (a secret): never read unless asked for by name. */
  hidden: boolean;
  nullable: boolean;
  integer: boolean;
  /** Read back as true/false whichever the driver (SQLite stores 0/1). */
  boolean: boolean;
  length?: number;
  enum?: readonly (string | number)[];
}

const TIMESTAMP_TYPES = new Set<unknown>([Date, 'datetime', 'timestamp', 'timestamp with time zone', 'timestamptz']);
const INTEGER_TYPES = new Set<unknown>([Number, 'int', 'integer', 'int4', 'bigint', 'smallint']);

/**
 * One entity's table as the fixed SQL of its repository sees it, read once at start-up from the
 * entity's TypeORM decorators: the decorators are the only place a field is named, and the
 * column lists and the row mapper below are derived from them.
 */
export class EntityTable<T extends object> {
  readonly name: string;
  /** The entity's class name ('Post'), as errors name the resource. */
  readonly entityName: string;
  /** Every column but the hidden ones, in declaration order. */
  readonly columns: readonly TableColumn[];
  /** The columns a representation shows: neither hidden nor the version. */
  readonly fields: readonly TableColumn[];
  /** The `select: false` columns: written when given, never read back. */
  readonly hiddenColumns: readonly TableColumn[];
  private readonly byProperty: Map<string, TableColumn>;
  private readonly create: () => T;
  private readonly mappers = new Map<string, (row: Record<string, unknown>) => T>();
  private readonly mapRow: (row: Record<string, unknown>) => T;

  constructor(metadata: EntityMetadata) {
    const all = metadata.columns.map(
      (column): TableColumn => ({
        property: column.propertyName,
        name: column.databaseName,
        timestamp: TIMESTAMP_TYPES.has(column.type),
        version: column.isVersion,
        hidden: !column.isSelect,
        nullable: column.isNullable,
        integer: INTEGER_TYPES.has(column.type) || column.isVersion,
        boolean: column.type === Boolean || column.type === 'boolean',
        length: column.length ? Number(column.length) : undefined,
        enum: column.enum,
      }),
    );
    this.name = metadata.tableName;
    this.entityName = metadata.name;
    this.byProperty = new Map(all.map((column) => [column.property, column]));
    this.columns = all.filter((column) => !column.hidden);
    this.fields = this.columns.filter((column) => !column.version);
    this.hiddenColumns = all.filter((column) => column.hidden);
    const target = metadata.target as new () => T;
    this.create = () => new target();
    this.mapRow = this.compileMapper('');
  }

  column(property: keyof T & string): TableColumn {
    const column = this.byProperty.get(property);
    if (!column) throw new Error(`${this.name} has no column for ${property}`);
    return column;
  }

  /**
   * `a.id, a.title, …`, or `a.id AS p_id, …` with a prefix (for joining this table into another's rows);
   * with `properties`, only those columns (a partial row, for a reader that needs no more).
   */
  selectList(alias: string, prefix = '', properties?: readonly string[]): string {
    return this.columnsOf(properties)
      .map((column) => `${alias}.${column.name}${prefix ? ` AS ${prefix}${column.name}` : ''}`)
      .join(', ');
  }

  /** The same list without an alias, for `RETURNING`. */
  get returningList(): string {
    return this.columns.map((column) => column.name).join(', ');
  }

  /** The entity of a row; with `properties`, of a row read with `selectList(…, properties)` (the others left unset). */
  fromRow(row: Record<string, unknown>, prefix = '', properties?: readonly string[]): T {
    if (prefix === '' && properties === undefined) return this.mapRow(row);
    const key = properties === undefined ? prefix : `${prefix}:${properties.join(',')}`;
    let mapper = this.mappers.get(key);
    if (!mapper) this.mappers.set(key, (mapper = this.compileMapper(prefix, this.columnsOf(properties))));
    return mapper(row);
  }

  /** The readable columns of these properties, in declaration order (every one without). */
  private columnsOf(properties: readonly string[] | undefined): readonly TableColumn[] {
    if (properties === undefined) return this.columns;
    for (const property of properties) {
      if (!this.columns.some((column) => column.property === property)) throw new Error(`${this.name} has no readable column for ${property}`);
    }
    return this.columns.filter((column) => properties.includes(column.property));
  }

  /** The row mapper (codegen.ts), compiled once per prefix and set of columns. */
  private compileMapper(prefix: string, columns: readonly TableColumn[] = this.columns): (row: Record<string, unknown>) => T {
    return compileMapper(this.create, toDate, columns, prefix);
  }
}

/** A timestamp as either driver returns it: a Date (PostgreSQL) or a UTC `YYYY-MM-DD HH:MM:SS.SSS` string (SQLite). */
export function toDate(value: unknown): Date {
  if (value instanceof Date) return value;
  const text = String(value);
  // The form this service writes, read without building another string (every row has two).
  if (text.length === 23 && text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 && text.charCodeAt(10) === 32 && text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58 && text.charCodeAt(19) === 46) {
    const month = digits(text, 5, 2);
    const day = digits(text, 8, 2);
    const hours = digits(text, 11, 2);
    const minutes = digits(text, 14, 2);
    const seconds = digits(text, 17, 2);
    // Out-of-range fields would roll over in Date.UTC: such text goes to Date, as before.
    if (month >= 1 && month <= 12 && hours <= 23 && minutes <= 59 && seconds <= 59 && text.charCodeAt(0) !== 48) {
      const date = new Date(Date.UTC(digits(text, 0, 4), month - 1, day, hours, minutes, seconds, digits(text, 20, 3)));
      if (date.getUTCDate() === day) return date;
    }
  }
  return new Date(text.includes('T') ? text : `${text.replace(' ', 'T')}Z`);
}

/** The decimal number in `count` characters from `from`; NaN if one is not a digit (for timestamp parsers). */
export function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let index = from; index < from + count; index++) {
    const digit = text.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return NaN;
    value = value * 10 + digit;
  }
  return value;
}
