import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ApolloServerPlugin } from '@apollo/server';
import type { RouteHandlerMethod } from 'fastify';

/**
 * GraphiQL served entirely from this service (no CDN), for development: the page Apollo shows
 * to a browser's GET /graphql, and its scripts and styles from node_modules under
 * /graphql/ide/. Nothing inline, so the Content-Security-Policy (script-src 'self') holds.
 */
export const IDE_ASSETS_PATH = '/graphql/ide';

const require = createRequire(import.meta.url);

const JS = 'application/javascript; charset=utf-8';

/** File name → the package and the file in it (the packages do not export their UMD builds). */
const ASSETS: Record<string, { pkg: string; file: string; type: string }> = {
  'react.production.min.js': { pkg: 'react', file: 'umd/react.production.min.js', type: JS },
  'react-dom.production.min.js': { pkg: 'react-dom', file: 'umd/react-dom.production.min.js', type: JS },
  'graphiql.min.js': { pkg: 'graphiql', file: 'graphiql.min.js', type: JS },
  'graphiql.min.css': { pkg: 'graphiql', file: 'graphiql.min.css', type: 'text/css; charset=utf-8' },
};

const INIT_SCRIPT = `'use strict';
(function () {
  var url = new URL(${JSON.stringify('/graphql')}, window.location.href);
  var subscriptionUrl = new URL(url.href);
  subscriptionUrl.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  var fetcher = GraphiQL.createFetcher({ url: url.toString(), subscriptionUrl: subscriptionUrl.toString() });
  ReactDOM.createRoot(document.getElementById('graphiql')).render(
    React.createElement(GraphiQL, { fetcher: fetcher, defaultEditorToolsVisibility: true, shouldPersistHeaders: true }),
  );
})();
`;

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>GraphiQL · Blog service</title>
    <link rel="stylesheet" href="${IDE_ASSETS_PATH}/graphiql.min.css" />
    <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
  </head>
  <body>
    <div id="graphiql">Loading GraphiQL…</div>
    <script src="${IDE_ASSETS_PATH}/react.production.min.js"></script>
    <script src="${IDE_ASSETS_PATH}/react-dom.production.min.js"></script>
    <script src="${IDE_ASSETS_PATH}/graphiql.min.js"></script>
    <script src="${IDE_ASSETS_PATH}/init.js"></script>
  </body>
</html>
`;

/** Apollo's landing page: shown for GET /graphql with Accept: text/html. */
export function graphiqlLandingPagePlugin(): ApolloServerPlugin {
  return {
    async serverWillStart() {
      return {
        async renderLandingPage() {
          return { html: PAGE };
        },
      };
    },
  };
}

/** GET /graphql/ide/:file: the IDE's files, read once on first request and kept in memory. */
export function serveGraphiqlAssets(): RouteHandlerMethod {
  const cache = new Map<string, Promise<Buffer>>();
  return async function serveGraphiqlAssets(request, reply) {
    const { file } = request.params as { file: string };
    if (file === 'init.js') {
      return reply.header('content-type', JS).header('cache-control', 'no-cache').send(INIT_SCRIPT);
    }
    const asset = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!asset) return reply.callNotFound();
    let content = cache.get(file);
    if (!content) {
      content = readFile(join(dirname(require.resolve(`${asset.pkg}/package.json`)), asset.file));
      cache.set(file, content);
    }
    return reply.header('content-type', asset.type).header('cache-control', 'public, max-age=86400').send(await content);
  };
}
