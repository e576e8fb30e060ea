/** Builds each named part (server: src → dist, web: web → web/dist, database: the PGlite template) whose sources changed; returns the names built. */
export function ensureBuilt(names?: ('server' | 'web' | 'database')[], options?: { force?: boolean; log?: (message: string) => void }): Promise<string[]>;
