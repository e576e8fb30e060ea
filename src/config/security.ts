import { z } from 'zod';

export const securityVariables = z.object({
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((list, ctx) => originsFrom(list, (message) => ctx.addIssue({ code: 'custom', message })))
    .describe('other sites allowed to call the API from a browser, comma-separated origins (`https://app.example.com`); unset = same origin only'),
  MAX_QUERY_DEPTH: z.coerce.number().int().min(1).max(100).default(12).describe('deepest selection of an operation (fragments expanded)'),
  MAX_QUERY_COST: z.coerce
    .number()
    .int()
    .min(1)
    .default(50_000)
    .describe('highest operation cost: 1 per field; a list field multiplies what it selects by 10 (`graphEdges` by its `first`)'),
  MAX_QUERY_ALIASES: z.coerce.number().int().min(0).default(20).describe('most aliases in an operation'),
  MAX_QUERY_TOKENS: z.coerce.number().int().min(100).default(3000).describe('most tokens (names, punctuation, values) in an operation document'),
  MAX_QUERY_DIRECTIVES: z.coerce.number().int().min(0).default(30).describe('most directives in an operation'),
  MAX_LIST_ARGUMENT: z.coerce
    .number()
    .int()
    .min(1)
    .max(10_000)
    .default(100)
    .describe('most items of any list in arguments or variables (`nodes(ids:)`, tags, edges, JSON values) and keys of one `LOOKUP`'),
  MAX_SAME_MUTATION: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(5)
    .describe('most times one mutation field may run in one request (aliased `sendMessage`, ...)'),
  MAX_YAML_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(65_536)
    .describe('largest YAML agent accepted by `validateAgent`, `registerAgent` and `AGENTS_DIR`'),
  MAX_CONCURRENT_TURNS_PER_USER: z.coerce.number().int().min(1).default(4).describe('turns one user may have running at once, on all instances together'),
  MAX_TURNS_PER_MINUTE: z.coerce
    .number()
    .int()
    .min(1)
    .default(30)
    .describe('turns (ephemeral ones included) and extractions one user may start per minute, on all instances together'),
  MAX_WS_CONNECTIONS_PER_USER: z.coerce.number().int().min(1).default(10).describe('websocket connections one user may hold on one instance'),
  MAX_SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).default(20).describe('operations one websocket connection may run at once'),
});

/** Limits on what one caller may send and run (docs/security.md). */
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
