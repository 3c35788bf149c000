import { randomBytes } from 'node:crypto';
import { bool, databaseUrl, file, int, list, localeFallbacks, localeList, localeTag, oneOf, postgresUrlList, setting, text, trustProxy, url } from './setting-kinds.js';

/**
 * Every setting of the service, declared once: its environment variable, kind and bounds,
 * default, description and whether it is a secret. The key is the AppConfig property that holds
 * its value (typed by the kind). `loadConfig` reads these; `npm run settings:docs` writes
 * `.env.example` and the README's table from them (a test fails when those files disagree).
 *
 * To add a setting, add an entry here (in its group, or a new one) and run `npm run settings:docs`.
 * Defaults are written as the environment would spell them. Values that combine settings, and
 * rules across settings, live in app-config.ts.
 */
export const SETTINGS = {
  nodeEnv: setting('NODE_ENV', oneOf('development', 'production', 'test'), {
    group: 'Server',
    default: 'development',
    description: 'The environment: `production` requires `JWT_SECRET` and turns GraphQL introspection off.',
  }),
  port: setting('PORT', int(0, 65_535), {
    group: 'Server',
    default: '3000',
    description: 'The HTTP port to listen on.',
  }),
  host: setting('HOST', text(), {
    group: 'Server',
    default: '0.0.0.0',
    description: 'The address to listen on (bind address).',
  }),
  logLevel: setting('LOG_LEVEL', oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'), {
    group: 'Server',
    default: 'info',
    description: 'How much is logged: `fatal` … `trace`, or `silent`.',
  }),

  database: setting('DATABASE_URL', databaseUrl(), {
    group: 'Database and first admin',
    default: 'sqlite:./data/blog.sqlite',
    secret: true,
    description:
      'The database: the embedded SQLite file `./data/blog.sqlite` by default; `sqlite:<path>` (`sqlite::memory:` for memory) or `postgres://user:pass@host:5432/db`.',
  }),
  databaseDirectUrl: setting('DATABASE_DIRECT_URL', url('postgres:', 'postgresql:'), {
    group: 'Database and first admin',
    secret: true,
    description:
      'PostgreSQL behind a transaction pooler (PgBouncer and the like) in `DATABASE_URL`: a direct `postgres://` URL of the same database, for what needs a session of its own: LISTEN and the migrations with their lock. Setting it also sends the statements on `DATABASE_URL` unnamed (a transaction pooler cannot keep prepared statements). Unset: everything uses `DATABASE_URL` (docs/operations.md, "Behind a connection pooler").',
  }),
  dbPoolSize: setting('DB_POOL_SIZE', int(1, 1000), {
    group: 'Database and first admin',
    default: '10',
    description: 'PostgreSQL connection pool size: connections per instance.',
  }),
  databaseReplicaUrls: setting('DATABASE_REPLICA_URLS', postgresUrlList(), {
    group: 'Database and first admin',
    default: '',
    secret: true,
    description:
      'Read replicas (streaming standbys of the PostgreSQL `DATABASE_URL`), comma-separated `postgres://` URLs: anonymous REST reads and GraphQL queries go to a healthy replica, everything else to the primary (docs/operations.md, "Read replicas"). PostgreSQL only.',
  }),
  databaseReplicaMaxLagMs: setting('DATABASE_REPLICA_MAX_LAG_MS', int(0, 3_600_000), {
    group: 'Database and first admin',
    default: '5000',
    description: 'A replica further behind the primary than this (milliseconds of replay) is skipped until it catches up.',
  }),
  seedDemoData: setting('SEED_DEMO_DATA', bool(), {
    group: 'Database and first admin',
    default: 'true',
    description: 'Load demo users, posts and comments into an empty database.',
  }),
  adminEmail: setting('ADMIN_EMAIL', text({ pattern: /^[^\s@]+@[^\s@]+\.[^\s@]+$/, like: 'an e-mail address', lowercase: true }), {
    group: 'Database and first admin',
    description:
      'With `ADMIN_PASSWORD`: when both are set and no admin exists, this admin is created at start-up (an existing account is never promoted: start-up warns and creates nothing).',
  }),
  adminPassword: setting('ADMIN_PASSWORD', text({ minLength: 8, maxLength: 128 }), {
    group: 'Database and first admin',
    secret: true,
    description: 'With `ADMIN_EMAIL`: the password of the admin created at start-up.',
  }),

  jwtSecret: setting('JWT_SECRET', text({ minLength: 32 }), {
    group: 'Tokens',
    secret: true,
    requiredInProduction: true,
    generate: () => randomBytes(32).toString('hex'),
    generatedText: 'random per process',
    description:
      'HS256 signing secret for bearer tokens. Required in production; unset elsewhere means a random secret per process (tokens end with the process).',
  }),
  jwtExpiresInS: setting('JWT_EXPIRES_IN', int(60, 2_592_000), {
    limit: 'Lifetime of our tokens (seconds); an expired token is 401, and a socket or stream holding it closes (4403)',
    group: 'Tokens',
    default: '3600',
    description: 'Token lifetime, in seconds.',
  }),

  authJwksUrl: setting('AUTH_JWKS_URL', url('https:', 'http:'), {
    group: 'Single sign-on (OpenID Connect)',
    description:
      "Single sign-on (docs/sso.md): the OpenID Connect provider's key set (JWKS). Set, its RS256/ES256 tokens are accepted, and `AUTH_ISSUER` and `AUTH_AUDIENCE` are required.",
  }),
  authIssuer: setting('AUTH_ISSUER', text(), {
    group: 'Single sign-on (OpenID Connect)',
    description: "Required with `AUTH_JWKS_URL`: the exact `iss` of the provider's tokens.",
  }),
  authAudience: setting('AUTH_AUDIENCE', text(), {
    group: 'Single sign-on (OpenID Connect)',
    description: 'Required with `AUTH_JWKS_URL`: the `aud` value the provider puts in tokens meant for this service.',
  }),
  authRolesClaim: setting('AUTH_ROLES_CLAIM', text(), {
    group: 'Single sign-on (OpenID Connect)',
    default: 'roles',
    description: "The claim listing the user's roles (a dotted name reaches into objects, e.g. `realm_access.roles`).",
  }),
  authAdminRole: setting('AUTH_ADMIN_ROLE', text(), {
    group: 'Single sign-on (OpenID Connect)',
    default: 'blog-admin',
    description: 'The role in that claim that makes a blog admin (re-read on every token).',
  }),
  authJwksCacheMaxAgeMs: setting('AUTH_JWKS_CACHE_MAX_AGE_MS', int(1000, 604_800_000), {
    group: 'Single sign-on (OpenID Connect)',
    default: '600000',
    description: 'How long the key set is cached (milliseconds); older keys are refetched before use.',
  }),
  authJwksCooldownMs: setting('AUTH_JWKS_COOLDOWN_MS', int(0, 86_400_000), {
    limit: "Refetches of the provider's key set: at most one per cooldown, however many unknown `kid`s arrive",
    group: 'Single sign-on (OpenID Connect)',
    default: '30000',
    description: 'A token with an unknown `kid`, or a failed fetch, refetches the key set at most once per this many milliseconds.',
  }),
  authJwksTimeoutMs: setting('AUTH_JWKS_TIMEOUT_MS', int(100, 60_000), {
    limit: "Time one fetch of the provider's key set may take",
    group: 'Single sign-on (OpenID Connect)',
    default: '5000',
    description: 'A fetch of the key set is given up after this many milliseconds.',
  }),

  redisUrl: setting('REDIS_URL', url('redis:', 'rediss:'), {
    group: 'Redis',
    secret: true,
    description:
      'Optional Redis (`redis://host:6379`): subscription events across instances, rate-limit counters and caches shared by instances (persisted queries). Unset: everything stays in this process.',
  }),
  redisKeyPrefix: setting('REDIS_KEY_PREFIX', text(), {
    group: 'Redis',
    default: 'blog:',
    description: 'Prefix of every Redis key and channel of this deployment.',
  }),

  rateLimitMax: setting('RATE_LIMIT_MAX', int(0, 1_000_000_000), {
    limit: 'Requests per client address per `RATE_LIMIT_WINDOW_S`, on every door (each WebSocket/SSE operation counts); past it 429 `RATE_LIMITED` with `Retry-After`',
    group: 'Rate limits',
    default: '1000',
    description: 'Requests per client address per window (`0` turns the limit off).',
  }),
  rateLimitWindowS: setting('RATE_LIMIT_WINDOW_S', int(1, 86_400), {
    group: 'Rate limits',
    default: '60',
    description: 'The window of the rate limits, in seconds.',
  }),
  rateLimitCostMax: setting('RATE_LIMIT_COST_MAX', int(0, 1_000_000_000), {
    limit: 'GraphQL cost per client address per `RATE_LIMIT_WINDOW_S`, on every transport, counted across instances through Redis when set; past it 429 `RATE_LIMITED`',
    group: 'Rate limits',
    default: '50000',
    description: 'The GraphQL cost one client address may spend per window, on every transport (`0` turns it off).',
  }),
  rateLimitAuthMax: setting('RATE_LIMIT_AUTH_MAX', int(0, 1_000_000_000), {
    limit: 'Sign-in attempts per address, and failures per (e-mail, address), per window; wrong `currentPassword` guesses count too; past it 429',
    group: 'Rate limits',
    default: '20',
    description: 'Sign-in attempts (`POST /tokens`, `createToken`) per address, and failures per (e-mail, address), per window.',
  }),
  rateLimitAccountMax: setting('RATE_LIMIT_ACCOUNT_MAX', int(0, 1_000_000_000), {
    limit: 'Failed sign-ins (and `currentPassword` guesses) per e-mail per hour from all addresses together; past it 429',
    group: 'Rate limits',
    default: '100',
    description: 'Failed sign-ins per e-mail per hour from all addresses together (stops distributed guessing; `0` = off).',
  }),
  rateLimitSignupMax: setting('RATE_LIMIT_SIGNUP_MAX', int(0, 1_000_000_000), {
    limit: 'Sign-ups per address per window; past it 429',
    group: 'Rate limits',
    default: '10',
    description: 'Sign-ups (`POST /users`, `createUser`) per address per window (`0` = off).',
  }),
  rateLimitSearchMax: setting('RATE_LIMIT_SEARCH_MAX', int(0, 1_000_000_000), {
    limit: 'Searches per client address per `RATE_LIMIT_WINDOW_S`, REST and GraphQL together (each searched `posts` field counts); past it 429 `RATE_LIMITED`',
    group: 'Rate limits',
    default: '120',
    description:
      'Searches (`GET /posts?q=`, each `posts(search:)` field on every GraphQL transport) per client address per window, counted across instances through Redis when set, whatever their `limit`; an answer from the response cache is no search. Past it 429 `RATE_LIMITED` with `Retry-After` (`0` = off).',
  }),
  rateLimitCommentsMax: setting('RATE_LIMIT_COMMENTS_MAX', int(0, 1_000_000), {
    limit: 'Comments per user per minute, counted on every instance together (through Redis when set); past it 429 `RATE_LIMITED`',
    group: 'Rate limits',
    default: '10',
    description: 'Comments one user may write per minute (`POST /posts/{id}/comments`, `createComment`), counted across instances through Redis when `REDIS_URL` is set; past it 429 `RATE_LIMITED` with `Retry-After` (`0` = off).',
  }),

  rateLimitTagsMax: setting('RATE_LIMIT_TAGS_MAX', int(0, 1_000_000), {
    limit: 'New tags per writer per hour made by naming them on posts (editors and admins not counted), counted on every instance together (through Redis when set); past it 429 `RATE_LIMITED`',
    group: 'Rate limits',
    default: '20',
    description:
      'New tags one writer may make per hour by naming them on posts (`tags` of `POST`/`PATCH /posts`, `createPost`, `updatePost`; drafts too), counted across instances through Redis when `REDIS_URL` is set; past it 429 `RATE_LIMITED` with `Retry-After`, and the post is not written. Editors and admins, who manage tags, are not counted (`0` = off).',
  }),

  rateLimitUploadsMax: setting('RATE_LIMIT_UPLOADS_MAX', int(0, 1_000_000), {
    limit: 'Uploads (`POST /media`) per user per `RATE_LIMIT_WINDOW_S`, counted on every instance together (through Redis when set); past it 429 `RATE_LIMITED`',
    group: 'Rate limits',
    default: '30',
    description: 'Files one user may upload (`POST /media`) per window, counted across instances through Redis when `REDIS_URL` is set; past it 429 `RATE_LIMITED` with `Retry-After`, before any byte is stored (`0` = off).',
  }),

  metricsEnabled: setting('METRICS_ENABLED', bool(), {
    group: 'HTTP',
    default: 'true',
    description: 'Serve Prometheus metrics at `/metrics`.',
  }),
  responseCache: setting('RESPONSE_CACHE', oneOf('memory', 'off'), {
    group: 'HTTP',
    default: 'memory',
    description: 'Anonymous GETs and GraphQL queries answered from memory until a write changes them (`off`: never).',
  }),
  responseCacheMaxBytes: setting('RESPONSE_CACHE_MAX_MB', int(1, 65_536, { times: 1_048_576 }), {
    limit: 'Memory the response cache may hold; least recently used answers go first',
    group: 'HTTP',
    default: '64',
    description: 'The most the cached answers may take, in megabytes (least recently used dropped first).',
  }),
  corsOrigins: setting('CORS_ORIGINS', list(/^https?:\/\/[^/\s]+$/, 'origins like `https://app.example.com`'), {
    limit: 'Browser origins allowed to call the API; others get no `Access-Control-Allow-Origin`',
    group: 'HTTP',
    default: '',
    description: 'Browser origins allowed by CORS to call the API (default: none).',
  }),
  trustProxy: setting('TRUST_PROXY', trustProxy(), {
    limit: 'Which `X-Forwarded-For` entries name the client (every per-address limit depends on it); entries a client wrote are never taken',
    group: 'HTTP',
    default: 'false',
    description:
      "Behind load balancers: `true` (one proxy hop), a number of hops, or the proxies' addresses/CIDRs. The client is the address the outermost trusted proxy saw, counted from the right of `X-Forwarded-For`; entries a client wrote itself are never taken. `false`: the socket's address.",
  }),
  bodyLimitBytes: setting('BODY_LIMIT_BYTES', int(1024, 104_857_600), {
    limit: 'Request body, and one WebSocket message; past it 413 (a socket closes with 1009)',
    group: 'HTTP',
    default: '1048576',
    description: 'Largest accepted request body, in bytes (1048576 = 1 MiB).',
  }),
  requestTimeoutMs: setting('REQUEST_TIMEOUT_MS', int(100, 600_000), {
    limit: 'Time for a whole request to arrive, however slowly it trickles in; past it 408 and the connection closes',
    group: 'HTTP',
    default: '30000',
    description:
      'The longest a request may take to arrive whole, headers and body, however slowly it trickles in (milliseconds); then 408 and the connection closes. Checked every tenth of the setting (between 50 ms and 1 s), so a request is cut at most that much later. Also the longest a connection may stay silent; headers alone must arrive within it or 60 s, the shorter.',
  }),
  shutdownTimeoutMs: setting('SHUTDOWN_TIMEOUT_MS', int(0, 600_000), {
    limit: 'Time given to requests in flight after SIGTERM',
    group: 'HTTP',
    default: '10000',
    description: 'On SIGTERM, how long to wait for requests in flight before giving up (milliseconds).',
  }),

  graphqlIntrospection: setting('GRAPHQL_INTROSPECTION', bool(), {
    limit: 'Schema introspection and "Did you mean" hints (off in production)',
    group: 'GraphQL',
    default: 'true',
    productionDefault: 'false',
    description: 'Schema introspection (and "Did you mean" hints).',
  }),
  graphqlMaxDepth: setting('GRAPHQL_MAX_DEPTH', int(1, 1000), {
    limit: 'Depth of a GraphQL operation, through fragments; past it 400 `QUERY_TOO_DEEP` before it runs',
    group: 'GraphQL',
    default: '10',
    description: "Deepest nesting of fields (HTTP and WebSocket), counted through fragments (introspection's own nesting not counted).",
  }),
  graphqlMaxComplexity: setting('GRAPHQL_MAX_COMPLEXITY', int(1, 1_000_000_000), {
    group: 'GraphQL',
    default: '1000',
    description:
      'Deprecated (v4), no effect: the cost (`GRAPHQL_MAX_COST`) is the one budget of an operation. Still accepted (and checked) so that existing deployments start.',
  }),
  graphqlMaxCost: setting('GRAPHQL_MAX_COST', int(1, 1_000_000_000), {
    limit: 'Cost of one GraphQL operation (the `@cost`/`@listSize` weights: scalars 0, objects 1, lists by their size); past it 400 `COST_LIMIT_EXCEEDED` (with `extensions.cost`) before it runs',
    group: 'GraphQL',
    default: '10000',
    description:
      'The one budget of an operation, on every transport (POST, GET, WebSocket, SSE, persisted queries): the weights declared next to the fields they price (docs/graphql.md, "Cost and limits").',
  }),
  graphqlFederation: setting('GRAPHQL_FEDERATION', bool(), {
    group: 'GraphQL',
    default: 'false',
    description: '`/graphql` is an Apollo Federation 2 subgraph: `@key(fields: "id")` on `User`, `Post`, `Comment` and `Tag`, `_service` and `_entities`.',
  }),
  graphqlPlans: setting('GRAPHQL_PLANS', oneOf('on', 'off'), {
    group: 'GraphQL',
    default: 'on',
    description:
      '`on`: a query of one root field — `post(id:)` (the post\'s own fields, its author, comments with their authors, tags), the plain list `posts(first, after, authorId, locale)` (its edges, nodes, pageInfo and totalCount; each post\'s own fields, author, tags and comments) or `user(id:)` (id, name, avatarUrl and their posts) — is planned once per document and answered by one SQL statement; any other document runs field by field. `off`: every document runs field by field (the same answers).',
  }),
  graphqlMaxAliases: setting('GRAPHQL_MAX_ALIASES', int(0, 100_000), {
    limit: 'Aliases in one GraphQL document; past it 400 before it runs',
    group: 'GraphQL',
    default: '50',
    description: 'Aliased fields per operation (counted through fragments), checked before running.',
  }),
  graphqlMaxTokens: setting('GRAPHQL_MAX_TOKENS', int(100, 1_000_000), {
    limit: 'Tokens in one GraphQL document, counted before parsing; past it 400',
    group: 'GraphQL',
    default: '5000',
    description: 'Tokens per document (parsing stops beyond).',
  }),
  graphqlMaxDocumentBytes: setting('GRAPHQL_MAX_DOCUMENT_BYTES', int(1024, 104_857_600), {
    limit: 'Size of one GraphQL document, checked before parsing; past it 400',
    group: 'GraphQL',
    default: '102400',
    description: 'Document size in bytes (refused before parsing, 413).',
  }),
  graphqlPersistedQueries: setting('GRAPHQL_PERSISTED_QUERIES', oneOf('apq', 'only', 'off'), {
    limit: '`only`: no document outside the allow-list runs (`PERSISTED_QUERY_REQUIRED`)',
    group: 'GraphQL',
    default: 'apq',
    description:
      '`apq`: automatic persisted queries (cached in Redis when `REDIS_URL` is set); `only`: nothing but the documents of `GRAPHQL_PERSISTED_QUERIES_FILE` runs (an allow-list); `off`.',
  }),
  graphqlPersistedQueriesFile: setting('GRAPHQL_PERSISTED_QUERIES_FILE', file(), {
    group: 'GraphQL',
    description: 'An Apollo persisted query manifest: the documents `GRAPHQL_PERSISTED_QUERIES=only` allows (required then).',
  }),
  graphqlApqMaxBytes: setting('GRAPHQL_APQ_MAX_MB', int(1, 65_536, { times: 1_048_576 }), {
    limit: 'Memory for automatic persisted queries; least recently used go first',
    group: 'GraphQL',
    default: '16',
    description:
      'Automatic persisted queries: megabytes kept, in Redis or in this process (oldest evicted first; documents are stored without comments or ignored characters).',
  }),
  graphqlApqRegistrationsMax: setting('GRAPHQL_APQ_REGISTRATIONS_MAX', int(0, 1_000_000_000), {
    limit: 'New automatic persisted queries per address per window; past it a document runs but is not stored',
    group: 'GraphQL',
    default: '100',
    description:
      'New automatic persisted queries per client address per `RATE_LIMIT_WINDOW_S` (beyond it a document still runs, it is just not stored; `0` = no limit).',
  }),

  subscriptionsMaxConnections: setting('SUBSCRIPTIONS_MAX_CONNECTIONS', int(1, 1_000_000), {
    limit: 'Live WebSocket and SSE connections per instance; past it 1013 / 503',
    group: 'Live subscriptions',
    default: '10000',
    description: 'Live connections per instance: WebSockets (graphql-ws on `/graphql`) and event streams (SSE on `/graphql/stream`).',
  }),
  subscriptionsMaxPerAddress: setting('SUBSCRIPTIONS_MAX_PER_ADDRESS', int(1, 1_000_000), {
    limit: 'Live WebSocket and SSE connections per client address (a socket counts from its upgrade, before `connection_init`); past it 1013 / 429',
    group: 'Live subscriptions',
    default: '100',
    description: 'Live WebSockets and event streams per client address (counted from the upgrade, before `connection_init`).',
  }),
  subscriptionsMaxPerConnection: setting('SUBSCRIPTIONS_MAX_PER_CONNECTION', int(1, 100_000), {
    limit: 'Operations on one WebSocket; past it `RATE_LIMITED`',
    group: 'Live subscriptions',
    default: '100',
    description: 'Operations per WebSocket connection.',
  }),
  subscriptionsMaxComplexityPerAddress: setting('SUBSCRIPTIONS_MAX_COMPLEXITY_PER_ADDRESS', int(1, 1_000_000_000), {
    limit: "What one address's distinct subscriptions may cost per event; past it `RATE_LIMITED`",
    group: 'Live subscriptions',
    default: '5000',
    description:
      "What one address's distinct subscriptions may cost per event, as the sum of their costs (`GRAPHQL_MAX_COST`'s measure; identical subscriptions share one execution and count once).",
  }),
  subscriptionsKeepAliveMs: setting('SUBSCRIPTIONS_KEEPALIVE_MS', int(0, 3_600_000), {
    limit: 'WebSocket pings; a peer that misses one is cut off',
    group: 'Live subscriptions',
    default: '15000',
    description: 'WebSocket ping interval in milliseconds (`0` = no pings).',
  }),
  subscriptionsMaxQueue: setting('SUBSCRIPTIONS_MAX_QUEUE', int(1, 1_000_000), {
    limit: 'Unread live events one subscription may hold (WebSocket and SSE); one more ends it with `SUBSCRIBER_TOO_SLOW`',
    group: 'Live subscriptions',
    default: '1000',
    description:
      'Live events one subscription may have waiting for its client; one more ends it with `SUBSCRIBER_TOO_SLOW` (keep it above the largest burst of writes: the relay publishes up to 500 events at once).',
  }),
  subscriptionsStallTimeoutMs: setting('SUBSCRIPTIONS_STALL_TIMEOUT_MS', int(100, 3_600_000), {
    limit: "Time an SSE stream's written data may stay undrained; then `SUBSCRIBER_TOO_SLOW` (events: with `extensions.after`), the connection cut after as long again",
    group: 'Live subscriptions',
    default: '30000',
    description:
      "How long an event stream's written data may stay undrained before the stream is ended with `SUBSCRIBER_TOO_SLOW` (milliseconds); the connection is cut after as long again.",
  }),

  webhookTimeoutMs: setting('WEBHOOK_TIMEOUT_MS', int(100, 120_000), {
    limit: 'Time a webhook receiver has to answer an attempt',
    group: 'Webhooks and the event log',
    default: '5000',
    description: 'How long a webhook receiver has to answer an attempt (milliseconds).',
  }),
  webhookRetryBaseMs: setting('WEBHOOK_RETRY_BASE_MS', int(10, 3_600_000), {
    group: 'Webhooks and the event log',
    default: '5000',
    description: "The wait before a webhook delivery's first retry (milliseconds), doubled for each further one (plus up to a fifth of jitter).",
  }),
  webhookMaxAttempts: setting('WEBHOOK_MAX_ATTEMPTS', int(1, 30), {
    limit: 'Attempts of one delivery before it is given up',
    group: 'Webhooks and the event log',
    default: '8',
    description: 'Attempts of one webhook delivery before it is given up.',
  }),
  webhookAllowPrivate: setting('WEBHOOK_ALLOW_PRIVATE', bool(), {
    limit: 'Webhook URLs resolving to loopback, private, link-local addresses, or IPv6 forms carrying one (mapped, compatible, NAT64, 6to4, Teredo): 400 unless `true`',
    group: 'Webhooks and the event log',
    default: 'false',
    description: 'Let webhook URLs point at (resolve to) loopback, private and link-local addresses (development, tests); refused unless `true`.',
  }),
  eventsRetentionDays: setting('EVENTS_RETENTION_DAYS', int(1, 36_500), {
    limit: 'Days events, ended webhook deliveries and their attempts are kept (pruned hourly in batches); an older cursor is 410 `CURSOR_EXPIRED`',
    group: 'Webhooks and the event log',
    default: '7',
    description:
      "Days the event log keeps each event (`GET /events`, the `events` subscription's `after`); older events are pruned hourly, and a cursor from before what was pruned is answered 410 `CURSOR_EXPIRED`. Webhook deliveries that ended (delivered or given up) and their attempts are kept as long; pending ones until they end.",
  }),

  auditRetentionDays: setting('AUDIT_RETENTION_DAYS', int(1, 36_500), {
    limit: 'Days the audit log keeps each entry (pruned at start-up and hourly, in batches)',
    group: 'Audit log',
    default: '365',
    description:
      'Days the audit log (`GET /audit`, `auditEntries`) keeps each entry; older entries are deleted at start-up and hourly, a batch at a time (docs/audit.md).',
  }),

  otelExporterOtlpEndpoint: setting('OTEL_EXPORTER_OTLP_ENDPOINT', url('http:', 'https:'), {
    group: 'Tracing (OpenTelemetry)',
    description:
      'Where traces go over OTLP/HTTP (a collector, Jaeger, Tempo…; `/v1/traces` is appended). Unset: tracing is off and the OpenTelemetry SDK is not even loaded.',
  }),
  otelExporterOtlpProtocol: setting('OTEL_EXPORTER_OTLP_PROTOCOL', oneOf('http/protobuf', 'http/json'), {
    group: 'Tracing (OpenTelemetry)',
    default: 'http/protobuf',
    description: 'The OTLP encoding: `http/protobuf` or `http/json` (gRPC is not served).',
  }),
  otelExporterOtlpHeaders: setting('OTEL_EXPORTER_OTLP_HEADERS', text({ pattern: /^[^=,\s]+=[^,]*(,[^=,\s]+=[^,]*)*$/, like: 'comma-separated `key=value` pairs' }), {
    group: 'Tracing (OpenTelemetry)',
    secret: true,
    description: 'Headers sent with every export, e.g. `authorization=Bearer …` (W3C baggage format).',
  }),
  otelServiceName: setting('OTEL_SERVICE_NAME', text({ minLength: 1, maxLength: 200 }), {
    group: 'Tracing (OpenTelemetry)',
    default: 'blog-service',
    description: 'The `service.name` of every span.',
  }),
  otelTracesSampler: setting(
    'OTEL_TRACES_SAMPLER',
    oneOf('always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'),
    {
      group: 'Tracing (OpenTelemetry)',
      default: 'parentbased_always_on',
      description: 'Which traces are kept: the standard samplers (`parentbased_*` follow an incoming `traceparent`).',
    },
  ),
  otelTracesSamplerArg: setting('OTEL_TRACES_SAMPLER_ARG', text({ pattern: /^(0(\.\d+)?|1(\.0+)?)$/, like: 'a ratio from 0 to 1' }), {
    group: 'Tracing (OpenTelemetry)',
    default: '1',
    description: 'The ratio of `traceidratio` samplers (0 to 1).',
  }),

  trashRetentionDays: setting('TRASH_RETENTION_DAYS', int(1, 36_500), {
    limit: 'Days a post stays in the trash before it is deleted for good (checked hourly, in short batches)',
    group: 'Posts',
    default: '30',
    description:
      'Days a trashed post (`DELETE /posts/{id}` on a post not yet in the trash) stays there; then it is deleted for good with its comments, as a second `DELETE` would, checked at start-up and hourly in short batches.',
  }),
  postsReview: setting('POSTS_REVIEW', oneOf('off', 'required'), {
    limit: 'Whether authors must submit their posts for review before they are published',
    group: 'Posts',
    default: 'off',
    description:
      '`off`: authors publish and schedule their own posts; `in_review` and `POST /posts/{id}/reviews` still work for those who want them. `required`: an author cannot publish or schedule their own post (403 `FORBIDDEN`); they submit it with `status: "in_review"` and an editor or admin approves it (or requests changes). Editors and admins publish directly.',
  }),
  searchLanguage: setting('SEARCH_LANGUAGE', text({ pattern: /^[a-z_]{1,63}$/, like: 'a text search configuration name (`english`, `german`, `simple`…)' }), {
    group: 'Posts',
    description:
      "Full-text search (`GET /posts?q=`, `posts(search:)`) indexes each post in its locale's language (docs/languages.md, \"Search\"). Set, this PostgreSQL text search configuration (`SELECT cfgname FROM pg_ts_config`) is used instead for the posts in `DEFAULT_LOCALE`'s language (what it named for every post before posts had locales); an unknown one stops start-up. When it changes, start-up rebuilds the search column and its index (one pass over the posts). SQLite ignores it (Porter stems for English posts, plain words for the others).",
  }),
  searchMaxTerms: setting('SEARCH_MAX_TERMS', int(1, 64), {
    limit: 'Words one search looks for: its distinct words and phrases (a phrase counts its words), the first ones kept',
    group: 'Posts',
    default: '8',
    description:
      'The most words a search (`q`, `search`) looks for. Its words and phrases are taken once each, whatever their case (`the The THE` is one word); past this many words the rest of the text is left out (a phrase is cut at the bound, exclusions come after the words to find). Bounds what one search costs.',
  }),
  searchTimeoutMs: setting('SEARCH_TIMEOUT_MS', int(0, 2000), {
    limit: 'How long a search statement may run on PostgreSQL; past it 503 `SERVICE_UNAVAILABLE` with `Retry-After`',
    group: 'Posts',
    default: '1000',
    description:
      'PostgreSQL: a search statement (`GET /posts?q=`, `posts(search:)`) is cancelled after this many milliseconds (`statement_timeout`) and answered 503 `SERVICE_UNAVAILABLE` with `Retry-After` (`0` = no limit of its own). At most 2000: past 2 s the driver stops waiting for the answer to any statement, while the server would go on working on it. SQLite cannot interrupt a statement: the word bound (`SEARCH_MAX_TERMS`) bounds its work.',
  }),
  supportedLocales: setting('SUPPORTED_LOCALES', localeList(), {
    group: 'Languages',
    default: 'en',
    description:
      'The languages posts are written in: BCP 47 tags, comma-separated (`en,de,de-CH,fr`), kept in their canonical case (`de-ch` is `de-CH`). A post in another locale is 400 naming `locale` (docs/languages.md).',
  }),
  defaultLocale: setting('DEFAULT_LOCALE', localeTag(), {
    group: 'Languages',
    description: 'The locale of a post written without one, and of the posts that were there before languages; one of `SUPPORTED_LOCALES`. Unset: the first of them.',
  }),
  localeFallbacks: setting('LOCALE_FALLBACKS', localeFallbacks(), {
    group: 'Languages',
    default: '',
    description:
      'Where each locale falls back to when a translation group has no post in it: `locale:fallback` pairs, comma-separated (`de-CH:de,de:en`), both sides supported, without cycles. Unset: none (then `DEFAULT_LOCALE`).',
  }),
  publicBaseUrl: setting('PUBLIC_BASE_URL', url('http:', 'https:'), {
    group: 'Publication',
    description:
      'The origin (and optional path prefix) of every absolute link the service writes: feeds, sitemaps, preview URLs, canonical and Open Graph URLs. Unset: `http://localhost:{PORT}`. No trailing `/` needed.',
  }),
  publicPostUrl: setting('PUBLIC_POST_URL', text({ minLength: 1, maxLength: 500, pattern: /^(\{base\}|https?:\/\/)/, like: 'a URL template starting with `{base}` or `http(s)://`' }), {
    group: 'Publication',
    default: '{base}/posts/{id}',
    description:
      'Where a post lives on the public site (feeds, sitemap, canonical links): a template with `{base}` (PUBLIC_BASE_URL), `{id}`, `{slug}`, `{locale}`, and `{yyyy}`, `{mm}`, `{dd}` of its publication date, e.g. `https://blog.example.com/{yyyy}/{mm}/{slug}`.',
  }),
  previewTtlS: setting('PREVIEW_TTL_S', int(60, 31_536_000), {
    limit: 'How long a preview link (`POST /posts/{id}/previews`) opens its post',
    group: 'Publication',
    default: '604800',
    description: 'Seconds a preview link stays valid (default 7 days); `DELETE /posts/{id}/previews` revokes all of a post\'s links at once.',
  }),
  sitemapMaxUrls: setting('SITEMAP_MAX_URLS', int(1, 50_000), {
    limit: 'URLs in one sitemap; past it `/sitemap.xml` is an index of `/sitemaps/{n}` pages',
    group: 'Publication',
    default: '50000',
    description: 'The most URLs one sitemap lists (sitemaps.org allows 50,000); past it `/sitemap.xml` is a sitemap index of `/sitemaps/{n}` pages of at most this many each.',
  }),
  mediaStorage: setting('MEDIA_STORAGE', oneOf('filesystem', 's3'), {
    group: 'Media',
    default: 'filesystem',
    description: 'Where uploaded files and their variants live: `filesystem` (under `MEDIA_DIR`, one instance) or `s3` (any S3-compatible store, which several instances share: `S3_BUCKET` and its companions, the keys from the standard `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`).',
  }),
  mediaDir: setting('MEDIA_DIR', text({ minLength: 1, maxLength: 4096 }), {
    group: 'Media',
    default: './data/media',
    description: 'The directory of `MEDIA_STORAGE=filesystem` (made when the first file is stored).',
  }),
  mediaMaxBytes: setting('MEDIA_MAX_BYTES', int(1, 1_073_741_824), {
    limit: 'Bytes of one uploaded file; past it 413, counted as it streams in (nothing kept)',
    group: 'Media',
    default: '20971520',
    description: 'The largest file `POST /media` accepts (default 20 MiB); a larger one is 413 `PAYLOAD_TOO_LARGE` as soon as it passes the bound, and what was stored of it is deleted.',
  }),
  mediaMaxPixels: setting('MEDIA_MAX_PIXELS', int(1, 1_000_000_000), {
    limit: 'Pixels (width × height) of an uploaded image, read from its header before it is decoded; past it 413',
    group: 'Media',
    default: '40000000',
    description: 'The most pixels an uploaded image may declare (width × height, every frame of an animation); past it 413 before a pixel is decoded (a decompression bomb is refused from its header).',
  }),
  mediaVariantWidths: setting('MEDIA_VARIANT_WIDTHS', list(/^[1-9]\d{0,4}$/, 'widths in pixels (1-99999)'), {
    group: 'Media',
    default: '320,768,1280,1920',
    description: 'The widths of the WebP variants made of each image in the background, each one that is narrower than the original (named `w{width}`, e.g. `?variant=w320`).',
  }),
  mediaConcurrency: setting('MEDIA_CONCURRENCY', int(1, 64), {
    limit: 'Images one instance decodes at the same time: uploads being cleaned and variants being made share them, uploads first',
    group: 'Media',
    default: '2',
    description: 'How many images one instance decodes at once (with sharp, off the event loop), uploads being cleaned and variants being made together, a waiting upload before a waiting variant; more uploads stream into storage meanwhile and wait their turn. What bounds the memory images take.',
  }),
  mediaPublicMaxAge: setting('MEDIA_PUBLIC_MAX_AGE', int(0, 31_536_000), {
    limit: 'Seconds a public file may be cached (`Cache-Control: public, max-age`); a file that stops being public is served no longer than this',
    group: 'Media',
    default: '300',
    description: 'The `max-age` of a public file (`GET /media/{id}/file`): how long a file that stops being public may still be served by caches. Non-public files are `private, no-store`.',
  }),
  s3Endpoint: setting('S3_ENDPOINT', url('http:', 'https:'), {
    group: 'Media',
    description: 'The S3-compatible endpoint of `MEDIA_STORAGE=s3` (MinIO: `http://minio:9000`); unset: AWS S3 in `S3_REGION`.',
  }),
  s3Bucket: setting('S3_BUCKET', text({ minLength: 3, maxLength: 63, pattern: /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, like: 'an S3 bucket name' }), {
    group: 'Media',
    description: 'The bucket of `MEDIA_STORAGE=s3` (it must exist).',
  }),
  s3Region: setting('S3_REGION', text({ minLength: 1, maxLength: 64, pattern: /^[a-z0-9-]+$/, like: 'a region like `eu-west-1`' }), {
    group: 'Media',
    default: 'us-east-1',
    description: 'The region of `MEDIA_STORAGE=s3`.',
  }),
  s3ForcePathStyle: setting('S3_FORCE_PATH_STYLE', bool(), {
    group: 'Media',
    default: 'false',
    description: 'Address the bucket in the path (`{endpoint}/{bucket}/{key}`) rather than the host name: MinIO and most self-hosted stores need `true`.',
  }),
  commentsModeration: setting('COMMENTS_MODERATION', oneOf('off', 'first', 'all'), {
    limit: 'Which new comments wait in `pending` for a moderator',
    group: 'Comments',
    default: 'off',
    description:
      '`off`: comments are approved at once. `first`: a user\'s comments wait in `pending` until one of theirs has been approved. `all`: every comment waits. Moderators, editors and admins never wait.',
  }),
  commentsMaxDepth: setting('COMMENTS_MAX_DEPTH', int(1, 100), {
    limit: 'How deep replies nest (a top-level comment is at depth 1); a reply deeper is 400',
    group: 'Comments',
    default: '5',
    description: 'How deep a thread may nest: a top-level comment is at depth 1, a reply to it at 2, and so on; a reply that would be deeper is refused with 400.',
  }),
};
