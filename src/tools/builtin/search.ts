import type { Source } from '../../events/agent-event.js';
import { isAppError } from '../../errors.js';
import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { REM_DIALECT } from '../../rem/dialect.js';
import { scopeFilter } from '../../documents/search.js';
import type { RemHit, RemResult, RemService } from '../../rem/service.js';

/** One REM query: the agents' `search` and the MCP server's `rem_query` take the same argument. */
export const remQueryInput = z.object({
  query: z.string().min(1).max(4000).describe('One REM query, e.g. LOOKUP "sarah-chen".'),
});

const SNIPPET = 300;
const CONTENT = 4000;

/**
 * The agents' `search` tool: runs a REM query as the agent's caller (same scoping as remQuery) and
 * emits the hits as a `sources` event. Query errors go back to the model as a result it can act on
 * (fix the syntax, pick another mode), not as a failure of the turn. In a turn bound to a document
 * or corpus, SEARCH finds only its documents' chunks.
 */
export function createSearchTool(rem: Pick<RemService, 'query'>) {
  return defineTool({
    name: 'search',
    description: REM_DIALECT,
    input: remQueryInput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    async handler(args, ctx) {
      let result;
      try {
        // A turn bound to a document or corpus searches within it.
        const scope = ctx.binding
          ? await scopeFilter(ctx.prisma, ctx.agent, ctx.binding.documentId ? { documentId: ctx.binding.documentId } : { corpusId: ctx.binding.corpusId })
          : undefined;
        const searchScope = scope ? { parents: scope.parents, corpus: scope.corpus } : { parents: [] };
        result = await rem.query(ctx.agent, args.query, scope === undefined ? {} : { searchScope });
      } catch (error) {
        if (!isAppError(error)) throw error;
        const { code, message } = error;
        return { error: { code, message, ...('position' in error ? { position: error.position } : {}) } };
      }
      if (result.hits.length > 0) ctx.emit({ type: 'sources', sources: result.hits.map(toSource) });
      return remResultForModel(result);
    },
  });
}

const remHitOutput = z.object({
  key: z.string(),
  entityType: z.string(),
  name: z.string().optional(),
  summary: z.string().nullable(),
  content: z.string().optional(),
  score: z.number().nullable(),
  edges: z.array(z.object({ dst: z.string(), rel_type: z.string(), weight: z.number() })).optional(),
  path: z.array(z.string()).optional(),
  rel_type: z.string().nullable().optional(),
  page: z.number().optional(),
});

/** What a REM query answers an agent or an MCP client: the MCP tools' output schema. */
export const remResultOutput = z.object({
  mode: z.string(),
  hits: z.array(remHitOutput),
  rows: z.array(z.record(z.string(), z.unknown())).optional(),
  truncated: z.boolean().optional(),
});

/** A REM result as agents and MCP clients get it: hits without row ids, long content cut. */
export function remResultForModel(result: RemResult): z.input<typeof remResultOutput> {
  return {
    mode: result.mode,
    hits: result.hits.map((hit) => ({
      key: hit.key,
      entityType: hit.entityType,
      ...(hit.name ? { name: hit.name } : {}),
      summary: hit.summary,
      ...(hit.content != null ? { content: truncate(hit.content, CONTENT) } : {}),
      score: hit.score,
      ...(hit.edges.length ? { edges: hit.edges.map((e) => ({ dst: e.dst, rel_type: e.rel_type, weight: e.weight })) } : {}),
      ...(hit.path ? { path: hit.path, rel_type: hit.relType } : {}),
      ...(hit.page !== null ? { page: hit.page } : {}),
    })),
    ...(result.rows ? { rows: result.rows, truncated: result.truncated } : {}),
  };
}

function toSource(hit: RemHit): Source {
  return {
    key: hit.key,
    entityType: hit.entityType,
    title: hit.name,
    snippet: hit.summary === null ? null : hit.summary.length > SNIPPET ? `${hit.summary.slice(0, SNIPPET - 1)}…` : hit.summary,
    score: hit.score,
    page: hit.page,
  };
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;
}
