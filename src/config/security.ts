import { z } from 'zod';

export const securityVariables = z.object({
  /** Browser origins allowed to call the API from another site (comma-separated, e.g. https://app.example.com); unset = none, same-origin only. */
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((list, ctx) => originsFrom(list, (message) => ctx.addIssue({ code: 'custom', message }))),
  /** Deepest selection set of an operation (fragments expanded). */
  MAX_QUERY_DEPTH: z.coerce.number().int().min(1).max(100).default(12),
  /** Highest cost of an operation: 1 per field, and a list field multiplies what it selects by 10 (graphEdges: by its `first`). */
  MAX_QUERY_COST: z.coerce.number().int().min(1).default(50_000),
  /** Most aliases in one operation. */
  MAX_QUERY_ALIASES: z.coerce.number().int().min(0).default(20),
  /** Most tokens (names, punctuation, values) in one operation document. */
  MAX_QUERY_TOKENS: z.coerce.number().int().min(100).default(3000),
  /** Most directives in one operation. */
  MAX_QUERY_DIRECTIVES: z.coerce.number().int().min(0).default(30),
  /** Most items of a list argument (nodes(ids:), remQuery LOOKUP keys, tags, ...). */
  MAX_LIST_ARGUMENT: z.coerce.number().int().min(1).max(10_000).default(100),
  /** Most times one mutation field may run in one request (aliased sendMessage, ...). */
  MAX_SAME_MUTATION: z.coerce.number().int().min(1).max(1000).default(5),
  /** Largest YAML document accepted (validateAgent, registerAgent, AGENTS_DIR files). */
  MAX_YAML_BYTES: z.coerce.number().int().min(1024).default(65_536),
  /** Turns one user may have running at once (across instances). */
  MAX_CONCURRENT_TURNS_PER_USER: z.coerce.number().int().min(1).default(4),
  /** Turns one user may start per minute (across instances). */
  MAX_TURNS_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** Websocket connections one user may hold open on one instance. */
  MAX_WS_CONNECTIONS_PER_USER: z.coerce.number().int().min(1).default(10),
  /** Subscriptions one websocket connection may run at once. */
  MAX_SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).default(20),
});

/** Limits on what one caller may send and run (README "Security"). */
export const securitySettings = securityVariables.transform((e) => ({
  corsOrigins: e.CORS_ORIGINS,
  operations: {
    maxDepth: e.MAX_QUERY_DEPTH,
    maxCost: e.MAX_QUERY_COST,
    maxAliases: e.MAX_QUERY_ALIASES,
    maxTokens: e.MAX_QUERY_TOKENS,
    maxDirectives: e.MAX_QUERY_DIRECTIVES,
    maxListArgument: e.MAX_LIST_ARGUMENT,
    maxSameMutation: e.MAX_SAME_MUTATION,
  },
  maxYamlBytes: e.MAX_YAML_BYTES,
  quotas: {
    concurrentTurnsPerUser: e.MAX_CONCURRENT_TURNS_PER_USER,
    turnsPerMinute: e.MAX_TURNS_PER_MINUTE,
    wsConnectionsPerUser: e.MAX_WS_CONNECTIONS_PER_USER,
    subscriptionsPerConnection: e.MAX_SUBSCRIPTIONS_PER_CONNECTION,
  },
}));

export type SecuritySettings = z.output<typeof securitySettings>;

/** CORS_ORIGINS as exact origins (scheme://host[:port]), the form browsers send in `Origin`. */
function originsFrom(list: string | undefined, problem: (message: string) => void): string[] {
  if (!list) return [];
  const origins: string[] = [];
  for (const raw of list.split(',')) {
    const value = raw.trim();
    let origin: string;
    try {
      origin = new URL(value).origin;
    } catch {
      problem(`"${value}" is not an origin such as https://app.example.com`);
      continue;
    }
    if (origin === 'null' || origin !== value.replace(/\/$/, '')) problem(`"${value}" is not an origin such as https://app.example.com (no path, no wildcard)`);
    else origins.push(origin);
  }
  return origins;
}
