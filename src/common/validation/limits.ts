/**
 * The largest id: ids are PostgreSQL `integer`s (32-bit, signed). A larger id in a path, a
 * query, a body or a cursor is bad input (400), never a value the database refuses (a 500).
 */
export const MAX_INT32 = 2_147_483_647;
