import { createHash } from 'node:crypto';
import { getMetadataArgsStorage } from 'typeorm';
import type { SchemaObject } from '../openapi/schemas.js';
import type { Link, Links } from './links.js';
import { Resource, ResourceList, type ResourceView } from './resource.js';
import { isoText } from './iso-text.js';
import { compileView } from '../persistence/codegen.js';

interface Identified {
  id: number;
  version: number;
}

/** What a feature declares about its resource; everything else is derived from its entity. */
export interface ResourceSpec<T extends Identified> {
  /** `post`: the resource's name in representations (the XML element, the HAL rel). */
  kind: string;
  /** `posts`: its collection, and the root of its paths. */
  plural: string;
  /** The entity class: its decorated columns are the resource's fields. */
  entity: new () => T;
  /** Links besides `self`, from the item's own fields (`author: /users/{authorId}`). */
  links?: (item: T) => Links;
  /** The rels of `links` an item has only sometimes (a comment's `parent`): not required in the OpenAPI schema. */
  optionalLinks?: readonly string[];
  /**
   * The rels of `links` that are arrays of links (a post's `tags`), each an item has only
   * sometimes, with the rel of one entry where links are written one by one (XML's `<link>`,
   * HTML's `<a>`): `tags` → `tag`. Each entry carries its `name` (HAL's secondary key: a tag's slug),
   * or with `{rel, key: 'hreflang'}` its `hreflang` instead (a post's translations → `alternate`).
   */
  linkArrays?: Readonly<Record<string, string | LinkArray>>;
  /**
   * Links only some readers get (a post's `revisions`): in the view when the caller reveals
   * them (`one(item, true)`, as private fields), after the others; optional in the schema.
   */
  readerLinks?: Readonly<Record<string, (item: T) => Link>>;
  /**
   * What an item's links show that its version does not follow (a post's translations), as a
   * short text; its ETag then carries a digest of it (Resource.variant). Undefined: nothing.
   */
  linkState?: (item: T) => string | undefined;
  /** What a column's type does not say about a field's values (an enum kept as varchar), for the OpenAPI schema. */
  fieldSchemas?: Partial<Record<keyof T & string, SchemaObject>>;
  /**
   * Fields only some readers see (a user's `commentsBlocked`): left out of the view unless the
   * caller reveals them (`one(item, true)`), and optional in the schema.
   */
  privateFields?: readonly (keyof T & string)[];
  /**
   * Fields that are no column (a post's `tags`, a tag's `postCount`): read with the item by its
   * repository, set on it under the same name, shown after the columns. Kept in the event log
   * when the item written carries them; required in the schema of what the API answers (every
   * read carries them), not in that of the event log's snapshot (`snapshotSchema`: a row a write
   * read without them, e.g. the scheduler's, has none).
   */
  computed?: Readonly<Record<string, ComputedField>>;
  /**
   * The events its writes publish, in the order the schema and the docs list them: name (the
   * subscription field; its type in the log is `eventType(name)`) → what it means (the
   * description of the type in GraphQL's `EventType` and the REST docs).
   */
  events?: Readonly<Record<string, string>>;
  /**
   * Where its events stand in the event log: the ids an event of it carries (ref → the field of
   * the resource it is; each ref is the column `snake_case(ref)` of the `events` table, which the
   * resource's own migration adds), and the payload of a deletion rebuilt from them (a deleted
   * resource's event has no resource). Optionally with the description of the ref in the feed
   * and as a filter of the `events` subscription (the first resource to describe a ref wins).
   */
  eventRefs?: Readonly<Record<string, EventRef<T>>>;
}

/** An array of links whose entries are told apart by another key than `name`. */
export interface LinkArray {
  /** The rel of one entry where links are written one by one. */
  rel: string;
  key: 'name' | 'hreflang';
}

/** The ids an event carries beside its resource, by ref name (null: the event has none). */
export type EventRefs = Readonly<Record<string, number | null>>;

/**
 * One ref of a resource's events: the field of the resource it is, alone or with its
 * `description` (the feed's field) and `filter` (the description of the `events` subscription's
 * argument that keeps the events with this id; without it the ref is no filter).
 */
export type EventRef<T> = (keyof T & string) | { field: keyof T & string; description?: string; filter?: string };

/** A ref of the event log, as the resources that declare it describe it. */
export interface EventRefColumn {
  /** `postId`: its name in the feed, the filters and the erasure scopes. */
  ref: string;
  /** `post_id`: its column in the `events` table. */
  column: string;
  description?: string;
  filter?: string;
}

/** An event type as its resource declares it. */
export interface EventTypeInfo {
  /** `POST_CREATED` */
  type: string;
  /** `postCreated` */
  name: string;
  description: string;
  kind: string;
}

/** A computed field: its OpenAPI schema; `xmlItem` names the elements of an array in XML (`<tags><tag>`). */
export interface ComputedField {
  schema: SchemaObject;
  xmlItem?: string;
}

interface Field {
  property: string;
  timestamp: boolean;
  schema: SchemaObject;
  nullable: boolean;
}

/**
 * One resource, as the feature module that owns it declares it: the catalog (resource-catalog.ts) iterates these
 * (representations, links, OpenAPI, entities, event names), so shared code names no resource.
 * The fields come from the entity's TypeORM decorators, read once on first use: every column
 * but secrets (`select: false`) and the version (which is the ETag).
 */
export class ResourceDefinition<T extends Identified = Identified> {
  readonly kind: string;
  readonly plural: string;
  readonly entity: new () => T;
  /** The names of its events, in declaration order. */
  readonly events: readonly string[];
  readonly eventDescriptions: Readonly<Record<string, string>>;
  /** Ref → the field of the resource it is. */
  readonly eventRefs?: Readonly<Record<string, keyof T & string>>;
  /** Refs as declared, with their descriptions. */
  readonly eventRefSpecs: Readonly<Record<string, EventRef<T>>>;
  private readonly extraLinks?: (item: T) => Links;
  private readonly optionalLinks: readonly string[];
  private readonly linkArrays: Readonly<Record<string, string | LinkArray>>;
  private readonly readerLinks: Readonly<Record<string, (item: T) => Link>>;
  private readonly linkState?: (item: T) => string | undefined;
  private readonly fieldSchemas: Partial<Record<string, SchemaObject>>;
  private readonly privateFields: readonly string[];
  private readonly computed: Readonly<Record<string, ComputedField>>;
  private fieldList?: Field[];
  private compiledView?: (item: T, definition: this) => ResourceView;
  private schemaObject?: SchemaObject;
  private snapshotSchemaObject?: SchemaObject;

  constructor(spec: ResourceSpec<T>) {
    this.kind = spec.kind;
    this.plural = spec.plural;
    this.entity = spec.entity;
    this.eventDescriptions = spec.events ?? {};
    this.events = Object.keys(this.eventDescriptions);
    this.eventRefSpecs = spec.eventRefs ?? {};
    this.eventRefs = spec.eventRefs && Object.fromEntries(Object.entries(spec.eventRefs).map(([ref, declared]) => [ref, typeof declared === 'string' ? declared : declared.field]));
    this.extraLinks = spec.links;
    this.optionalLinks = spec.optionalLinks ?? [];
    this.linkArrays = spec.linkArrays ?? {};
    this.readerLinks = spec.readerLinks ?? {};
    this.linkState = spec.linkState;
    this.fieldSchemas = spec.fieldSchemas ?? {};
    this.privateFields = spec.privateFields ?? [];
    this.computed = spec.computed ?? {};
  }

  path(id: number): string {
    return `/${this.plural}/${id}`;
  }

  links(item: T): Links {
    const self: Link = { href: this.path(item.id) };
    return this.extraLinks ? { self, ...this.extraLinks(item) } : { self };
  }

  /** The rel of one entry of an array of links (`tags` → `tag`), for XML and HTML. */
  linkRel(rel: string): string | undefined {
    if (!Object.hasOwn(this.linkArrays, rel)) return undefined;
    const declared = this.linkArrays[rel];
    return typeof declared === 'string' ? declared : declared.rel;
  }

  /** The resource as clients see it: its fields (timestamps in ISO 8601) and `_links`; its private fields and reader links too when `reveal`. */
  view(item: T, reveal = false): ResourceView {
    const view = (this.compiledView ??= this.compileView())(item, this);
    if (!reveal) return view;
    for (const [rel, link] of Object.entries(this.readerLinks)) view._links[rel] = link(item);
    if (this.privateFields.length === 0) return view;
    const { _links, ...fields } = view;
    const source = item as unknown as Record<string, unknown>;
    for (const property of this.privateFields) fields[property] = iso(source[property]);
    return { ...fields, _links };
  }

  /** The view function (codegen.ts), compiled once: the fields but the private ones, then the computed ones. */
  private compileView(): (item: T, definition: this) => ResourceView {
    const fields = this.fields.filter((field) => !this.privateFields.includes(field.property));
    return compileView<T, this, ResourceView>(iso, fields, Object.keys(this.computed));
  }

  /** The ids an event of this item (or of its deletion: the same fields) carries. */
  refsOf(payload: object): EventRefs {
    const source = payload as Record<string, unknown>;
    const refs: Record<string, number | null> = {};
    for (const [ref, property] of Object.entries(this.eventRefs ?? {})) {
      const value = source[property];
      refs[ref] = value === undefined || value === null ? null : Number(value);
    }
    return refs;
  }

  /** A deletion's payload rebuilt from its event's ids (`{id, authorId}`, …). */
  deletedPayload(refs: EventRefs): object {
    const payload: Record<string, unknown> = {};
    for (const [ref, property] of Object.entries(this.eventRefs ?? {})) payload[property] = refs[ref] ?? null;
    return payload;
  }

  /** The name of each element of an array field in XML (`tag` in `<tags>`), when it declares one. */
  xmlItem(field: string): string | undefined {
    return Object.hasOwn(this.computed, field) ? this.computed[field].xmlItem : undefined;
  }

  /** The properties the view and the event log carry, in declaration order. */
  get fieldNames(): string[] {
    return this.fields.map((field) => field.property);
  }

  /** The fields of an item as stored in the event log (JSON; timestamps in ISO 8601), with the computed ones it carries. */
  toJson(item: T): string {
    const source = item as unknown as Record<string, unknown>;
    const stored = Object.fromEntries(this.fields.map((field) => [field.property, source[field.property]]));
    for (const property of Object.keys(this.computed)) if (source[property] !== undefined) stored[property] = source[property];
    return JSON.stringify(stored);
  }

  /** The item back from the event log: an instance of the entity, timestamps as Dates. */
  fromJson(json: string): T {
    const stored = JSON.parse(json) as Record<string, unknown>;
    const item = new this.entity() as Record<string, unknown>;
    for (const field of this.fields) {
      const value = stored[field.property];
      item[field.property] = field.timestamp && typeof value === 'string' ? new Date(value) : value;
    }
    for (const property of Object.keys(this.computed)) if (stored[property] !== undefined) item[property] = stored[property];
    return item as T;
  }

  /**
   * What `fromJson(toJson(item))` gives, without the JSON: a new instance of the entity with the
   * item's fields and the computed ones it carries (Dates and arrays copied), for the subscribers
   * of an event this instance has just written.
   */
  copyOf(item: T): T {
    const source = item as unknown as Record<string, unknown>;
    const copy = new this.entity() as Record<string, unknown>;
    for (const field of this.fields) {
      const value = source[field.property];
      copy[field.property] = value instanceof Date ? new Date(value.getTime()) : value;
    }
    for (const property of Object.keys(this.computed)) {
      const value = source[property];
      if (value !== undefined) copy[property] = Array.isArray(value) ? [...(value as unknown[])] : value;
    }
    return copy as T;
  }

  /** `reveal`: with the private fields (the caller decided that the reader may see them). */
  one(item: T, reveal = false): Resource {
    const state = this.linkState?.(item);
    const variant = state === undefined ? undefined : `t${createHash('sha1').update(state).digest('base64url').slice(0, 10)}`;
    return new Resource(this, this.view(item, reveal), item.version, variant);
  }

  list(items: readonly T[], nextHref: string | null, reveal?: (item: T) => boolean): ResourceList {
    return new ResourceList(this, items.map((item) => this.view(item, reveal?.(item) ?? false)), nextHref, items);
  }

  /** The JSON schema of the view as the API answers it, computed fields and all, for the OpenAPI document. */
  get schema(): SchemaObject {
    if (!this.schemaObject) {
      const snapshot = this.snapshotSchema;
      const required = snapshot.required ?? [];
      this.schemaObject = { ...snapshot, required: [...required.slice(0, -1), ...Object.keys(this.computed), ...required.slice(-1)] };
    }
    return this.schemaObject;
  }

  /** The JSON schema of the view as the event log keeps it: its computed fields may be absent. */
  get snapshotSchema(): SchemaObject {
    if (!this.snapshotSchemaObject) {
      const rels = Object.keys(this.links(this.sample()));
      const link: SchemaObject = { type: 'object', properties: { href: { type: 'string' } }, required: ['href'], additionalProperties: false };
      const keyed = (key: string): SchemaObject => ({ type: 'object', properties: { href: { type: 'string' }, [key]: { type: 'string' } }, required: ['href', key], additionalProperties: false });
      const linkSchemas: Record<string, SchemaObject> = {
        ...Object.fromEntries(rels.map((rel) => [rel, link])),
        ...Object.fromEntries(Object.entries(this.linkArrays).map(([rel, declared]) => [rel, { type: 'array', items: keyed(typeof declared === 'string' ? 'name' : declared.key) }])),
        ...Object.fromEntries(Object.keys(this.readerLinks).map((rel) => [rel, link])),
      };
      this.snapshotSchemaObject = {
        type: 'object',
        properties: {
          ...Object.fromEntries(this.fields.map((field) => [field.property, { ...field.schema, ...this.fieldSchemas[field.property] }])),
          ...this.computedSchemas(),
          _links: { type: 'object', properties: linkSchemas, required: rels.filter((rel) => !this.optionalLinks.includes(rel) && !Object.hasOwn(this.linkArrays, rel)), additionalProperties: false },
        },
        // Computed fields are not required: a resource in the event log may have none.
        required: [...this.fields.map((field) => field.property).filter((property) => !this.privateFields.includes(property)), '_links'],
        additionalProperties: false,
      };
    }
    return this.snapshotSchemaObject;
  }

  private computedSchemas(): Record<string, SchemaObject> {
    return Object.fromEntries(Object.entries(this.computed).map(([property, field]) => [property, field.schema]));
  }

  private get fields(): Field[] {
    return (this.fieldList ??= readFields(this.entity));
  }

  /** An item with every integer field set, to learn the rels of `links`. */
  private sample(): T {
    const item = new this.entity() as Record<string, unknown>;
    for (const field of this.fields) if (field.schema.type === 'integer') item[field.property] = 1;
    item.id = 1;
    return item as T;
  }
}

const iso = (value: unknown) => (value instanceof Date ? isoText(value) : value);

function readFields(entity: new () => unknown): Field[] {
  return getMetadataArgsStorage()
    .filterColumns(entity)
    .filter((column) => column.mode !== 'version' && column.options.select !== false)
    .map((column) => {
      const designType: unknown = Reflect.getMetadata('design:type', entity.prototype as object, column.propertyName);
      const type = column.options.type ?? designType;
      const nullable = column.options.nullable === true;
      const timestamp = type === Date || type === 'datetime' || type === 'timestamp';
      const integer = column.options.primary === true || type === Number || type === 'integer' || type === 'int';
      const schema: SchemaObject = timestamp
        ? { type: 'string', format: 'date-time' }
        : integer
          ? { type: 'integer' }
          : { type: 'string', ...(column.options.length ? { maxLength: Number(column.options.length) } : {}) };
      if (column.options.enum) schema.enum = Object.values(column.options.enum);
      if (nullable) schema.nullable = true;
      return { property: column.propertyName, timestamp, schema, nullable };
    });
}

/** A resource as its feature declares it; src/resources.ts lists it for the application (ResourceCatalog). */
export function defineResource<T extends Identified>(spec: ResourceSpec<T>): ResourceDefinition<T> {
  return new ResourceDefinition(spec);
}

/** `postId` → `post_id`: a ref's column in the `events` table. */
export function refColumn(ref: string): string {
  const column = ref.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  // Written into SQL as is.
  if (!/^[a-z][a-z0-9_]*$/.test(column)) throw new Error(`The event ref ${ref} is no column name`);
  return column;
}

/** An event's name as the event log and clients write it: `postCreated` → `POST_CREATED`. */
export function eventType(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter}`).toUpperCase();
}
