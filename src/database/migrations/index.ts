import { InitialSchema1763700000000 } from './1763700000000-initial-schema.js';
import { CredentialStamps1764100000000 } from './1764100000000-credential-stamps.js';
import { ApiKeys1764200000000 } from './1764200000000-api-keys.js';
import { ExternalIdentities1764300000000 } from './1764300000000-external-identities.js';
import { EventsOutbox1764500000000 } from './1764500000000-events-outbox.js';
import { EventsPruned1764600000000 } from './1764600000000-events-pruned.js';
import { Webhooks1764700000000 } from './1764700000000-webhooks.js';
import { EventsOrigin1764800000000 } from './1764800000000-events-origin.js';
import { PostLifecycle1764900000000 } from './1764900000000-post-lifecycle.js';
import { EventErasureIndexes1764950000000 } from './1764950000000-event-erasure-indexes.js';
import { Conversation1765000000000 } from './1765000000000-conversation.js';
import { GenericEvents1765100000000 } from './1765100000000-generic-events.js';
import { Tags1765200000000 } from './1765200000000-tags.js';
import { PostSearch1765300000000 } from './1765300000000-post-search.js';
import { TagCountsPerStatement1765360000000 } from './1765360000000-tag-counts-per-statement.js';
import { WithdrawnContent1765400000000 } from './1765400000000-withdrawn-content.js';
import { EventTraceContext1765450000000 } from './1765450000000-event-trace-context.js';
import { Publication1765500000000 } from './1765500000000-publication.js';
import { Media1765600000000 } from './1765600000000-media.js';
import { MediaReferences1765700000000 } from './1765700000000-media-references.js';
import { PostLocales1765800000000 } from './1765800000000-post-locales.js';
import { GroupPublication1765900000000 } from './1765900000000-group-publication.js';
import { SearchPerLanguage1765950000000 } from './1765950000000-search-per-language.js';
import { PostReviews1766000000000 } from './1766000000000-post-reviews.js';
import { CommentsByAuthor1766040000000 } from './1766040000000-comments-by-author.js';
import { AuditLog1766100000000 } from './1766100000000-audit-log.js';
import { SqliteEventsById1766110000000 } from './1766110000000-sqlite-events-by-id.js';

/** Every migration, in order. Listed explicitly so the build and the CLI agree without globs. */
export const MIGRATIONS = [
  InitialSchema1763700000000,
  CredentialStamps1764100000000,
  ApiKeys1764200000000,
  ExternalIdentities1764300000000,
  EventsOutbox1764500000000,
  EventsPruned1764600000000,
  Webhooks1764700000000,
  EventsOrigin1764800000000,
  PostLifecycle1764900000000,
  EventErasureIndexes1764950000000,
  Conversation1765000000000,
  GenericEvents1765100000000,
  Tags1765200000000,
  PostSearch1765300000000,
  TagCountsPerStatement1765360000000,
  WithdrawnContent1765400000000,
  EventTraceContext1765450000000,
  Publication1765500000000,
  Media1765600000000,
  MediaReferences1765700000000,
  PostLocales1765800000000,
  GroupPublication1765900000000,
  SearchPerLanguage1765950000000,
  PostReviews1766000000000,
  CommentsByAuthor1766040000000,
  AuditLog1766100000000,
  SqliteEventsById1766110000000,
];
