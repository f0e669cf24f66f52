/** What a credential may do: `read` calls reads only; every write answers TOKEN_READ_ONLY. */
export type AccessLevel = 'read' | 'write';
