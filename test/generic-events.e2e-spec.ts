import 'reflect-metadata';
import request from 'supertest';
import { Column, DataSource, Entity, PrimaryGeneratedColumn, VersionColumn } from 'typeorm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PUBLIC_AUDIENCE } from '../src/auth/read-policy.js';
import { TransactionRunner } from '../src/common/persistence/transaction-runner.js';
import { ResourceCatalog, type ResourceList } from '../src/common/resource/resource-catalog.js';
import { defineResource, type ResourceDefinition } from '../src/common/resource/resource-definition.js';
import { RESOURCES } from '../src/resources.js';
import type { BlogEvent, BlogEventName } from '../src/events/blog-events.js';
import { encodeEventCursor, START } from '../src/events/event-cursor.js';
import { EventPublisher } from '../src/events/event-publisher.js';
import { payloadOf } from '../src/webhooks/webhook-dispatcher.js';
import { buildDataSourceOptions } from '../src/database/data-source-options.js';
import { ADMIN, bearer, tokenFor } from './support/auth.js';
import { createTestDatabase, type TestDatabase } from './support/databases.js';
import { expectData, graphql } from './support/graphql-client.js';
import { type ListeningApp, listen, LiveSubscription, until, type WsClient, wsClient } from './support/subscriptions.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * A resource's events are declared by the resource alone: a throw-away resource, declared here
 * and listed for the application here only (its events, a ref of its own, no author), is in the
 * event log's vocabulary everywhere — the outbox's columns, GET /events and its OpenAPI schema, the GraphQL `EventType`,
 * `Event` and the `events` subscription's filters, webhooks' types and bodies — with no shared
 * file edited. Its column is what its own migration would add (here: added before start-up).
 */

@Entity('gizmos')
class Gizmo {
  @PrimaryGeneratedColumn({ type: 'integer' })
  id: number;

  @VersionColumn({ type: 'integer' })
  version: number;

  @Column({ type: 'varchar', length: 40 })
  name: string;
}

const GIZMO = defineResource({
  kind: 'gizmo',
  plural: 'gizmos',
  entity: Gizmo,
  events: { gizmoMade: 'A gizmo was made', gizmoScrapped: 'A gizmo was scrapped' },
  eventRefs: { gizmoId: { field: 'id', description: 'The gizmo it is about', filter: 'Only events about this gizmo' } },
});

/** The service's resources and the gizmo, last. */
const WITH_GIZMO: ResourceList = { resources: [...RESOURCES.resources, GIZMO as unknown as ResourceDefinition<never>], tables: [...RESOURCES.tables] };
const catalog = new ResourceCatalog(WITH_GIZMO);

const gizmo = (id: number, name: string) => Object.assign(new Gizmo(), { id, name, version: 1 });
/** An event of the gizmo resource (not in BlogEvents: it exists in this file only). */
const gizmoEvent = (name: string, payload: object): BlogEvent => ({ name: name as BlogEventName, payload: payload as never, audience: PUBLIC_AUDIENCE });

it('the catalog derives the vocabulary from the declarations, gizmo last, as listed', () => {
  const types = catalog.eventTypes().map(({ type }) => type);
  expect(types.slice(-2)).toEqual(['GIZMO_MADE', 'GIZMO_SCRAPPED']);
  expect(types.indexOf('POST_CREATED')).toBeLessThan(types.indexOf('COMMENT_CREATED'));
  expect(catalog.eventRefs().find(({ ref }) => ref === 'gizmoId')).toEqual({ ref: 'gizmoId', column: 'gizmo_id', description: 'The gizmo it is about', filter: 'Only events about this gizmo' });
  expect(GIZMO.refsOf(gizmo(5, 'sprocket'))).toEqual({ gizmoId: 5 });
  expect(GIZMO.deletedPayload({ gizmoId: 5, postId: null })).toEqual({ id: 5 });
});

it("a webhook's body carries the refs the event has, and none it has not (no author)", () => {
  const body = JSON.parse(
    payloadOf({ id: 3, tx: 0, type: 'GIZMO_MADE', occurredAt: new Date(0), refs: { postId: null, authorId: null, commentId: null, gizmoId: 5 }, resource: '{"id":5,"name":"sprocket"}', origin: null, audience: PUBLIC_AUDIENCE, traceParent: null }, catalog),
  ) as { data: Record<string, unknown> };
  expect(body.data).toEqual({ cursor: expect.any(String), type: 'GIZMO_MADE', occurredAt: new Date(0).toISOString(), gizmoId: 5, resource: { id: 5, name: 'sprocket', _links: { self: { href: '/gizmos/5' } } } });
});

describeEachDatabase('events of a resource declared only by itself', (kind) => {
  let app: TestApp;
  let urls: ListeningApp;
  let adminToken: string;
  const clients: WsClient[] = [];

  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(kind, { file: true });
    const migrator = await new DataSource(buildDataSourceOptions(kind === 'sqlite' ? { type: 'sqlite', url: database.url.slice('sqlite:'.length) } : { type: 'postgres', url: database.url })).initialize();
    await migrator.runMigrations({ transaction: 'all' });
    // What the gizmo resource's own migration would do.
    await migrator.query('ALTER TABLE events ADD COLUMN gizmo_id integer');
    await migrator.destroy();
    app = await startTestApp(kind, { database, resources: WITH_GIZMO });
    urls = await listen(app);
    adminToken = await tokenFor(app, ADMIN);
  });
  afterAll(async () => {
    for (const client of clients) await client.dispose();
    await app?.close();
    await database?.drop();
  });

  async function record(...events: BlogEvent[]): Promise<void> {
    const publisher = app.app.get(EventPublisher);
    await app.app.get(TransactionRunner).run((manager) => publisher.record(manager, ...events));
    publisher.committed();
  }

  it('GET /events lists its events with its ref and resource, filtered by its types; a post event is as before', async () => {
    await request(app.server).post('/posts').set(bearer(adminToken)).send({ title: 'Still here', body: 'A post' }).expect(201);
    await record(gizmoEvent('gizmoMade', gizmo(5, 'sprocket')), gizmoEvent('gizmoScrapped', { id: 5 }));
    const response = await request(app.server).get('/events?types=GIZMO_MADE,GIZMO_SCRAPPED').expect(200);
    expect(response.body).toEqual([
      { cursor: expect.any(String), type: 'GIZMO_MADE', occurredAt: expect.any(String), gizmoId: 5, resource: { id: 5, name: 'sprocket', _links: { self: { href: '/gizmos/5' } } } },
      { cursor: expect.any(String), type: 'GIZMO_SCRAPPED', occurredAt: expect.any(String), gizmoId: 5 },
    ]);
    const [post] = (await request(app.server).get('/events?types=POST_CREATED').expect(200)).body as Record<string, unknown>[];
    expect(Object.keys(post).sort()).toEqual(['authorId', 'cursor', 'occurredAt', 'postId', 'resource', 'type']);
  });

  it('its types and ref are in the OpenAPI document', async () => {
    const doc = (await request(app.server).get('/docs-json').expect(200)).body as {
      components: { schemas: Record<string, { properties: Record<string, { enum?: string[]; oneOf?: { $ref: string }[]; type?: string; items?: { enum: string[] } }> }> };
      paths: Record<string, { get: { parameters: { name: string; schema: { pattern: string } }[] } }>;
    };
    const event = doc.components.schemas.Event.properties;
    expect(event.type.enum).toContain('GIZMO_SCRAPPED');
    expect(event.gizmoId).toEqual({ type: 'integer' });
    // Events keep snapshots: a resource's schema with its computed fields optional.
    expect(event.resource.oneOf).toContainEqual({ $ref: '#/components/schemas/GizmoSnapshot' });
    expect(doc.components.schemas.CreateWebhookDto.properties.types.items?.enum).toContain('GIZMO_MADE');
    const pattern = doc.paths['/events'].get.parameters.find((parameter) => parameter.name === 'types')!.schema.pattern;
    expect(new RegExp(pattern).test('POST_CREATED,GIZMO_MADE')).toBe(true);
  });

  it('a webhook may ask for its types', async () => {
    const created = await request(app.server).post('/webhooks').set(bearer(adminToken)).send({ url: 'http://203.0.113.10/hook', types: ['GIZMO_MADE'] });
    expect([created.status, created.body.types]).toEqual([201, ['GIZMO_MADE']]);
    await request(app.server).post('/webhooks').set(bearer(adminToken)).send({ url: 'http://203.0.113.10/hook', types: ['GIZMO_MELTED'] }).expect(400);
  });

  it('GraphQL: EventType has its types, Event its ref (and authorId is nullable), the events subscription its filter', async () => {
    const data = expectData(
      await graphql(
        app,
        `{
          eventType: __type(name: "EventType") { enumValues { name description } }
          event: __type(name: "Event") { fields { name type { kind name } } }
          subscription: __type(name: "Subscription") { fields { name args { name description } } }
        }`,
      ),
    ) as {
      eventType: { enumValues: { name: string; description: string }[] };
      event: { fields: { name: string; type: { kind: string; name: string | null } }[] };
      subscription: { fields: { name: string; args: { name: string; description: string }[] }[] };
    };
    expect(data.eventType.enumValues).toContainEqual({ name: 'GIZMO_MADE', description: 'A gizmo was made' });
    expect(data.event.fields).toContainEqual({ name: 'gizmoId', type: { kind: 'SCALAR', name: 'Int' } });
    expect(data.event.fields).toContainEqual({ name: 'authorId', type: { kind: 'SCALAR', name: 'Int' } });
    const events = data.subscription.fields.find((field) => field.name === 'events')!;
    // The schema is sorted.
    expect(events.args.map((arg) => arg.name)).toEqual(['after', 'authorId', 'gizmoId', 'mediaId', 'postId', 'tagId', 'types']);
    expect(events.args).toContainEqual({ name: 'gizmoId', description: 'Only events about this gizmo' });
  });

  it('the events subscription replays its events, filtered by its ref', async () => {
    await record(gizmoEvent('gizmoMade', gizmo(6, 'cog')), gizmoEvent('gizmoMade', gizmo(7, 'wheel')));
    const ws = wsClient(urls.ws);
    clients.push(ws);
    await ws.connected;
    const subscription = new LiveSubscription(ws.client, `subscription { events(after: "${encodeEventCursor(START)}", gizmoId: 7) { type gizmoId postId authorId } }`);
    await until('the replay', () => subscription.results.length >= 1 || subscription.error);
    // And live: gizmo 6's scrapping is not for it, gizmo 7's is.
    await record(gizmoEvent('gizmoScrapped', { id: 6 }), gizmoEvent('gizmoScrapped', { id: 7 }));
    await until('the live event', () => subscription.results.length >= 2 || subscription.error);
    expect(subscription.error).toBeUndefined();
    expect(subscription.results.map((result) => result.data?.events)).toEqual([
      { type: 'GIZMO_MADE', gizmoId: 7, postId: null, authorId: null },
      { type: 'GIZMO_SCRAPPED', gizmoId: 7, postId: null, authorId: null },
    ]);
  });
});
