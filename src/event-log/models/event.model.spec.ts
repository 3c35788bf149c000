import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { ResourceCatalog } from '../../common/resource/resource-catalog.js';
import { RESOURCES } from '../../resources.js';
import { declareEventSchema, EventType } from './event.model.js';

class Resolver {
  subscribe(): void {}
}

describe('declareEventSchema', () => {
  it("declares the catalog's event types once; again for the same vocabulary it does nothing, for another it refuses", () => {
    const catalog = new ResourceCatalog(RESOURCES);
    declareEventSchema(catalog, Resolver.prototype, 'subscribe', 0);
    expect(Object.keys(EventType)).toEqual(catalog.eventTypeNames());
    // Another application of the same resources.
    expect(() => declareEventSchema(new ResourceCatalog(RESOURCES), Resolver.prototype, 'subscribe', 0)).not.toThrow();
    expect(Object.keys(EventType)).toEqual(catalog.eventTypeNames());
    const fewer = new ResourceCatalog({ resources: RESOURCES.resources.slice(0, 2), tables: [] });
    expect(() => declareEventSchema(fewer, Resolver.prototype, 'subscribe', 0)).toThrow(/one event vocabulary/);
  });
});
