/**
 * Which browser pages may call the API: the server's own pages (the chat app at `/`, GraphiQL at
 * `/graphql`) and the CORS_ORIGINS allow-list. Requests without an `Origin` header come from
 * programs, not pages, and are not a cross-site risk.
 */
export interface OriginPolicy {
  /** True when a request carrying this Origin (for this Host) may act with the caller's identity. */
  allows(origin: string | undefined, host: string | undefined): boolean;
  /** Origins allowed cross-site (CORS); same-origin pages need no CORS headers. */
  readonly crossSite: readonly string[];
}

export function createOriginPolicy(corsOrigins: readonly string[]): OriginPolicy {
  const allowed = new Set(corsOrigins);
  return {
    crossSite: corsOrigins,
    allows(origin, host) {
      if (origin === undefined) return true;
      if (allowed.has(origin)) return true;
      try {
        return host !== undefined && new URL(origin).host === host.toLowerCase();
      } catch {
        return false;
      }
    },
  };
}

/** The header a browser client adds to a request that is not `application/json` (e.g. multipart uploads, GET). */
export const CSRF_HEADER = 'x-graphql-yoga-csrf';
