import { type EventAudience, PUBLIC_AUDIENCE } from '../auth/read-policy.js';

/**
 * Every event the service publishes, with its payload. Each feature adds its own events to this
 * map (TypeScript declaration merging, beside its resource definition); names are the GraphQL
 * subscription fields, payloads the resource (or, for deletions, what identifies it and its filters).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface BlogEvents {}

export type BlogEventName = keyof BlogEvents & string;

export interface BlogEvent<K extends BlogEventName = BlogEventName> {
  name: K;
  payload: BlogEvents[K];
  /** Who may read it (ReadPolicy.audienceOf); public unless said. */
  audience: EventAudience;
}

export function event<K extends BlogEventName>(name: K, payload: BlogEvents[K], audience: EventAudience = PUBLIC_AUDIENCE): BlogEvent<K> {
  return { name, payload, audience };
}

/**
 * Not a subscription field: said on the bus whenever what a user's credentials grant may have
 * changed (deleted, role or password changed, tokens revoked), so every instance can look again
 * at what it holds for that user (open sockets and streams, cached credential checks).
 */
export const CREDENTIALS_CHANGED = 'credentialsChanged';

export interface CredentialsChanged {
  userId: number;
}

export { eventType } from '../common/resource/resource-definition.js';

/**
 * Whether an event of this name records its resource (the payload types above): all but
 * deletions and unpublications, which carry ids only. One of the others read from the log
 * without content lost it after the write (erased, or withdrawn: CONTRACT §18).
 */
export function carriesContent(name: string): boolean {
  return !/(Deleted|Unpublished)$/.test(name);
}

/** The event name of a type: `POST_CREATED` → `postCreated`. */
export function eventName(type: string): string {
  return type.toLowerCase().replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/**
 * Not a subscription field: said on the bus after every write, before its events, so that
 * every other instance drops the answers it keeps in its response cache that the write touched
 * (`tags`, see tagsOfEvents; every answer without them). `origin` is the writing instance,
 * which has already dropped its own.
 */
export const CONTENT_CHANGED = 'contentChanged';

export interface ContentChanged {
  origin: string;
  tags?: string[];
}
