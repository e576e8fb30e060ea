import type { RemQueryMode } from './parser.js';

/**
 * The REM dialect as models and people are told it, one entry per mode: an example that parses
 * (test/unit/rem-dialect.test.ts) and what the mode is for. The search tool, the MCP `rem_query`
 * tool and `remQuery`'s GraphQL description show REM_DIALECT; `remgraph query --help` and the chat
 * app's memory panel list the same entries.
 */
export const REM_DIALECT_MODES = {
  LOOKUP: {
    example: 'LOOKUP "key"',
    use: 'exact kebab-case keys, several separated by commas; LOOKUP "session-<id>-msg-<n>" returns a full stored message',
  },
  FUZZY: { example: 'FUZZY "text" THRESHOLD 0.5 LIMIT 10', use: 'typos, partial names' },
  SEARCH: {
    example: `SEARCH "text" FROM entities WHERE tags CONTAINS 'x' AND type = 'y' AND metadata.k = 'v' AND created_at > '2026-01-01' LIMIT 10`,
    use:
      'similar content; FROM entities, resources or moments (or all); WHERE optional: tags CONTAINS ANY|ALL (...), updated_at, >=, <, <=; ' +
      'MIN_SIMILARITY x; PDF chunks give their page',
  },
  TRAVERSE: { example: 'TRAVERSE FROM "key" TYPE "rel" DEPTH 2', use: 'related entities along graph edges' },
  SQL: {
    example: 'SQL SELECT ...',
    use: 'one read-only SELECT over resources, entities, moments, kv_store, embeddings; no recursive CTEs; time, rows and bytes are capped, so filter and LIMIT',
  },
} as const satisfies Record<RemQueryMode, { example: string; use: string }>;

export const REM_DIALECT = `Query memory with the REM dialect. ${Object.values(REM_DIALECT_MODES)
  .map((mode) => `${mode.example} (${mode.use})`)
  .join(', ')}.`;
