import { ApolloClient, CombinedGraphQLErrors, gql, HttpLink, InMemoryCache, ServerError } from '@apollo/client';
import request from 'supertest';
import { beforeAll, expect, it } from 'vitest';
import { type ListeningApp, listen } from './support/subscriptions.js';
import { describeEachDatabase } from './support/test-app.js';
import { useApp } from './support/fixture.js';

/**
 * Apollo Client 4 (the stock client, core only, over a real socket) against a rate-limited
 * /graphql: the 429 is served as application/graphql-response+json to a client that accepts it,
 * so Apollo Client reads the GraphQL errors of the answer (a CombinedGraphQLErrors with
 * `RATE_LIMITED`) rather than a bare "status 429" (a ServerError) — over POST and over GET.
 */
const RATE_LIMIT_MAX = 1;
const POSTS = gql`
  query Posts {
    posts(first: 1) {
      nodes {
        id
        title
      }
    }
  }
`;

describeEachDatabase('Apollo Client reads a rate-limited answer', (kind) => {
  const app = useApp(kind, { env: { TRUST_PROXY: 'true', RATE_LIMIT_MAX: String(RATE_LIMIT_MAX) }, signIn: [] });
  let urls: ListeningApp;
  let addresses = 0;

  beforeAll(async () => {
    urls = await listen(app);
  });

  /** A client of its own address (X-Forwarded-For, trusted here), so each test has a fresh allowance. */
  function client(useGETForQueries: boolean): ApolloClient {
    addresses += 1;
    return new ApolloClient({
      link: new HttpLink({ uri: `${urls.http}/graphql`, useGETForQueries, headers: { 'x-forwarded-for': `10.9.0.${addresses}` } }),
      cache: new InMemoryCache(),
    });
  }

  for (const [method, useGET] of [['POST', false], ['GET', true]] as const) {
    it(`over ${method}: the first query answers, the next one is a GraphQL error with extensions.code RATE_LIMITED`, async () => {
      const apollo = client(useGET);
      const first = await apollo.query<{ posts: { nodes: { id: number }[] } }>({ query: POSTS, fetchPolicy: 'no-cache' });
      expect(first.data?.posts.nodes).toHaveLength(1);

      const refused: unknown = await apollo.query({ query: POSTS, fetchPolicy: 'no-cache' }).then(
        () => new Error('the second query was answered'),
        (error: unknown) => error,
      );
      expect(ServerError.is(refused), String(refused)).toBe(false);
      expect(CombinedGraphQLErrors.is(refused), String(refused)).toBe(true);
      const [error] = (refused as CombinedGraphQLErrors).errors;
      expect(error.extensions?.code).toBe('RATE_LIMITED');
      expect(error.extensions?.retryAfter).toBeGreaterThan(0);
      apollo.stop();
    });
  }

  it('the 429 follows Accept: graphql-response+json when accepted, JSON otherwise, Retry-After either way', async () => {
    const cases: [string | undefined, string][] = [
      ['application/graphql-response+json, application/json;q=0.9', 'application/graphql-response+json'],
      ['application/graphql-response+json, application/json', 'application/graphql-response+json'],
      ['application/json', 'application/json'],
      [undefined, 'application/json'],
      ['*/*', 'application/json'],
      ['text/plain', 'application/json'],
    ];
    for (const [accept, mediaType] of cases) {
      const address = `10.9.1.${(addresses += 1)}`;
      const send = () => request(app.server).post('/graphql').set('x-forwarded-for', address).send({ query: '{ __typename }' });
      expect((await send()).status).toBe(200);
      const refused = await (accept === undefined ? send() : send().set('accept', accept));
      expect(refused.status, `${accept}: ${refused.text}`).toBe(429);
      expect(refused.headers['content-type'], String(accept)).toBe(`${mediaType}; charset=utf-8`);
      expect(refused.headers['retry-after']).toMatch(/^\d+$/);
      expect(refused.headers.vary).toMatch(/\bAccept\b/);
      expect(JSON.parse(refused.text).errors[0].extensions.code).toBe('RATE_LIMITED');
    }
  });
});
