import { Directive } from '@nestjs/graphql';
import { MAX_INT32 } from '../validation/limits.js';

/**
 * A federation entity (CONTRACT §10): other subgraphs refer to it by id. The directive is only
 * printed into the schema by the federation driver (GRAPHQL_FEDERATION=true); graphql-js's
 * printer, and so schema.gql, leaves applied directives out.
 */
export const EntityKey = (): ClassDecorator => Directive('@key(fields: "id")');

/** A representation `{ __typename, id }` sent by a router or gateway to `_entities`. */
export interface EntityReference {
  __typename: string;
  id?: unknown;
}

/**
 * The id of a representation: a positive 32-bit integer (the gateway passes on what another
 * subgraph printed, so a decimal string is taken too); null for anything else, which resolves
 * the entity to null like an id that names no row.
 */
export function referencedId(reference: EntityReference): number | null {
  const { id } = reference;
  const value = typeof id === 'string' && /^[0-9]{1,10}$/.test(id) ? Number(id) : id;
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MAX_INT32 ? value : null;
}
