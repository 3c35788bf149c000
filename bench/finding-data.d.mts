export interface FindingSizes {
  users: number;
  posts: number;
  tags: number;
  words: number;
  /** The posts' locales: with more than one, translation groups of one post per locale. */
  locales: readonly string[];
}
export declare const SYLLABLES: readonly string[];
export declare const FINDING_DEFAULTS: Omit<FindingSizes, 'words'>;
export declare function findingSizes(options?: Partial<FindingSizes>): FindingSizes;
export declare function word(n: number): string;
export declare function loadFindingPostgres(client: { query(text: string): Promise<unknown> }, options?: Partial<FindingSizes>): Promise<FindingSizes>;
export declare function loadFindingSqlite(db: { exec(sql: string): unknown; prepare(sql: string): { all(): unknown[] }; transaction(fn: () => void): () => void }, options?: Partial<FindingSizes>): FindingSizes;
