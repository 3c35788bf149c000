import { InitialSchema1763700000000 } from './1763700000000-initial-schema.js';

/** Every migration, in order. Listed explicitly so the build and the CLI agree without globs. */
export const MIGRATIONS = [InitialSchema1763700000000];
