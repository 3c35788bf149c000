import 'reflect-metadata';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ResourceCatalog } from '../src/common/resource/resource-catalog.js';
import { RESOURCES } from '../src/resources.js';
import { ADMIN, bearer, tokenFor } from './support/auth.js';
import { expectData, graphql } from './support/graphql-client.js';
import { describeEachDatabase, startTestApp, type TestApp } from './support/test-app.js';

/**
 * What an application knows of its resources is its own (AppModule.forRoot's list, provided as
 * its ResourceCatalog), not the process's: two applications in one process, each on its own
 * database (a SQLite one beside one of each kind), serve side by side, and one closing leaves
 * the other serving.
 */
describeEachDatabase('two applications in one process', (kind) => {
  let first: TestApp;
  let second: TestApp;
  let firstClosed = false;
  const tokens = new Map<TestApp, string>();

  beforeAll(async () => {
    first = await startTestApp('sqlite');
    second = await startTestApp(kind);
    for (const app of [first, second]) tokens.set(app, await tokenFor(app, ADMIN));
  });
  afterAll(async () => {
    if (!firstClosed) await first?.close();
    await second?.close();
  });

  const titleOf = (app: TestApp) => (app === first ? 'Written in the first' : 'Written in the second');

  async function eventTitles(app: TestApp): Promise<string[]> {
    const response = await request(app.server).get('/events?types=POST_CREATED&limit=100').expect(200);
    return (response.body as { resource?: { title: string } }[]).map((event) => event.resource?.title ?? '');
  }

  async function graphqlVocabulary(app: TestApp) {
    return expectData(
      await graphql(
        app,
        `{
          eventType: __type(name: "EventType") { enumValues { name } }
          event: __type(name: "Event") { fields { name } }
        }`,
      ),
    ) as { eventType: { enumValues: { name: string }[] }; event: { fields: { name: string }[] } };
  }

  it('each has a catalog of its own, of the listed resources, and its entities are exactly theirs', () => {
    const catalogs = [first, second].map((app) => app.app.get(ResourceCatalog));
    expect(catalogs[0]).not.toBe(catalogs[1]);
    for (const [index, app] of [first, second].entries()) {
      const catalog = catalogs[index];
      expect(catalog.all().map(({ kind: resource }) => resource)).toEqual(RESOURCES.resources.map(({ kind: resource }) => resource));
      expect(new Set(app.app.get(DataSource).entityMetadatas.map((metadata) => metadata.target))).toEqual(new Set(catalog.entities));
    }
  });

  it('each writes and lists its own events', async () => {
    for (const app of [first, second]) {
      await request(app.server).post('/posts').set(bearer(tokens.get(app)!)).send({ title: titleOf(app), body: 'Side by side' }).expect(201);
    }
    expect(await eventTitles(first)).toContain(titleOf(first));
    expect(await eventTitles(first)).not.toContain(titleOf(second));
    expect(await eventTitles(second)).toContain(titleOf(second));
    expect(await eventTitles(second)).not.toContain(titleOf(first));
  });

  it('each states its event vocabulary in its OpenAPI document, its GraphQL schema and its validation', async () => {
    for (const app of [first, second]) {
      const types = app.app.get(ResourceCatalog).eventTypeNames();
      const doc = (await request(app.server).get('/docs-json').expect(200)).body as {
        components: { schemas: Record<string, { properties: Record<string, { enum?: string[]; maxItems?: number; items?: { enum?: string[] } }> }> };
      };
      expect(doc.components.schemas.Event.properties.type.enum).toEqual(types);
      expect(doc.components.schemas.CreateWebhookDto.properties.types).toMatchObject({ maxItems: types.length, items: { enum: types } });
      const vocabulary = await graphqlVocabulary(app);
      expect(vocabulary.eventType.enumValues.map(({ name }) => name).sort()).toEqual([...types].sort());
      expect(vocabulary.event.fields.map(({ name }) => name)).toEqual(expect.arrayContaining(['postId', 'authorId', 'commentId', 'tagId']));
      const refused = await request(app.server).post('/webhooks').set(bearer(tokens.get(app)!)).send({ url: 'http://203.0.113.10/hook', types: ['POST_MELTED'] }).expect(400);
      expect(JSON.stringify(refused.body)).toContain(`types must be a non-empty list of ${types.join(', ')}, each at most once`);
    }
  });

  it('the second serves on once the first is closed', async () => {
    await first.close();
    firstClosed = true;
    await request(second.server).post('/posts').set(bearer(tokens.get(second)!)).send({ title: 'After the first closed', body: 'Still here' }).expect(201);
    expect(await eventTitles(second)).toContain('After the first closed');
    const types = second.app.get(ResourceCatalog).eventTypeNames();
    expect((await request(second.server).get('/docs-json').expect(200)).body.components.schemas.Event.properties.type.enum).toEqual(types);
    expect((await graphqlVocabulary(second)).eventType.enumValues.map(({ name }) => name).sort()).toEqual([...types].sort());
  });
});
