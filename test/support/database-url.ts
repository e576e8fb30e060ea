let url = '';

/** This test file's own PostgreSQL database ('' on the PGlite backend), made by file-database.ts. */
export const databaseUrl = (): string => url;

export function useDatabaseUrl(value: string): void {
  url = value;
}
