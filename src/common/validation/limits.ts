/**
 * The largest id: ids are PostgreSQL `integer`s (32-bit, signed). A larger id in a path, a
 * query, a body or a cursor is bad input (400), never a value the database refuses (a 500).
 */
export const MAX_INT32 = 2_147_483_647;

/**
 * The longest path or query parameter value (or name) taken, in UTF-16 units: the longest one
 * declared is a post list's cursor (1,400). Longer ones are refused before any rule reads them.
 */
export const MAX_PARAMETER_CHARS = 2048;
