import { type EventRefColumn, type EventTypeInfo, eventType, refColumn, type ResourceDefinition } from './resource-definition.js';

/** What src/resources.ts names: the resources, and the entity classes of the tables that are no resource. */
export interface ResourceList {
  resources: readonly ResourceDefinition<never>[];
  tables: readonly (new () => object)[];
}

/**
 * The resources of one application, as AppModule.forRoot was given them (src/resources.ts),
 * and what is derived from their events, computed once: shared code asks it, in declaration
 * order, rather than naming a resource. Injected (ResourceCatalogModule); one per application.
 */
export class ResourceCatalog {
  /** Every entity class of the database: the resources' then the other tables'. */
  readonly entities: readonly (new () => object)[];
  private readonly byKind: ReadonlyMap<string, ResourceDefinition<never>>;
  private readonly byEvent: ReadonlyMap<string, ResourceDefinition<never>>;
  private readonly types: readonly EventTypeInfo[];
  private readonly refs: readonly EventRefColumn[];

  constructor(list: ResourceList) {
    const byKind = new Map<string, ResourceDefinition<never>>();
    const byEvent = new Map<string, ResourceDefinition<never>>();
    const types: EventTypeInfo[] = [];
    const refs = new Map<string, EventRefColumn>();
    for (const definition of list.resources) {
      if (byKind.has(definition.kind)) throw new Error(`The resource ${definition.kind} is named twice`);
      byKind.set(definition.kind, definition);
      for (const name of definition.events) {
        if (!byEvent.has(name)) byEvent.set(name, definition);
        types.push({ type: eventType(name), name, description: definition.eventDescriptions[name], kind: definition.kind });
      }
      for (const [ref, declared] of Object.entries(definition.eventRefSpecs)) {
        const known = refs.get(ref) ?? { ref, column: refColumn(ref) };
        // The first resource to describe a ref wins.
        if (typeof declared !== 'string') {
          known.description ??= declared.description;
          known.filter ??= declared.filter;
        }
        refs.set(ref, known);
      }
    }
    this.byKind = byKind;
    this.byEvent = byEvent;
    this.types = types;
    this.refs = [...refs.values()];
    this.entities = [...new Set([...list.resources.map((definition) => definition.entity as new () => object), ...list.tables])];
  }

  get(kind: string): ResourceDefinition<never> | undefined {
    return this.byKind.get(kind);
  }

  all(): ResourceDefinition<never>[] {
    return [...this.byKind.values()];
  }

  /** Every event type, in the order the resources are listed and declare their events (always the same array). */
  eventTypes(): readonly EventTypeInfo[] {
    return this.types;
  }

  /** `POST_CREATED`, …: eventTypes' names as the log and clients write them. */
  eventTypeNames(): string[] {
    return this.types.map(({ type }) => type);
  }

  /** Every ref of the event log: the union of the resources' `eventRefs`, in order (always the same array). */
  eventRefs(): readonly EventRefColumn[] {
    return this.refs;
  }

  /** The refs that filter the `events` subscription (declared with a `filter`), in order. */
  filterRefs(): string[] {
    return this.refs.flatMap(({ ref, filter }) => (filter ? [ref] : []));
  }

  /** The resource whose writes publish this event. */
  ofEvent(name: string): ResourceDefinition<never> | undefined {
    return this.byEvent.get(name);
  }
}
