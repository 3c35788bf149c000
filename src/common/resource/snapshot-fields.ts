import type { GraphQLResolveInfo } from 'graphql';
import { selectedFields } from '../graphql/selection.js';

/**
 * CONTRACT §18: a replay never resolves a snapshot's nested fields beyond what the reader may see
 * now. An event's resource is a snapshot, as the write left it; the fields under it that read what
 * is there now (a post's comments, commentCount and tags, a comment's replies: "live" fields,
 * declared beside their resolvers) are judged by the post as it is now. The event field that
 * serves a snapshot (Event.post, Event.comment) loads that post when the request selects a live
 * field (`selectsLiveField`), and gives a reader who may not see it now a copy marked withheld
 * (`withhold`), whose live fields resolve empty: no comments, no tags, a count of 0.
 */
const liveFields = new Map<string, Set<string>>();
const withheld = new WeakSet<object>();

/** The fields of a GraphQL type that read what is there now rather than the snapshot. */
export function declareLiveFields(type: string, ...fields: string[]): void {
  const declared = liveFields.get(type) ?? new Set<string>();
  for (const field of fields) declared.add(field);
  liveFields.set(type, declared);
}

/** Whether the field being resolved (of type `type`) selects a live field under it. */
export function selectsLiveField(info: GraphQLResolveInfo, type: string): boolean {
  const declared = liveFields.get(type);
  if (!declared) return false;
  for (const name of selectedFields(info).keys()) if (declared.has(name)) return true;
  return false;
}

/** A copy of the snapshot whose live fields resolve empty (the original is shared by every subscriber). */
export function withhold<T extends object>(snapshot: T): T {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(snapshot) as object | null) as T, snapshot);
  withheld.add(copy);
  return copy;
}

/** Whether a live field of this object must resolve empty (see withhold). */
export function isWithheld(value: object): boolean {
  return withheld.has(value);
}
