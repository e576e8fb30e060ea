/** Builds each named part (server: src → dist, web: web → web/dist) whose sources changed; returns the names built. */
export function ensureBuilt(names?: ('server' | 'web')[], options?: { force?: boolean; log?: (message: string) => void }): Promise<string[]>;
