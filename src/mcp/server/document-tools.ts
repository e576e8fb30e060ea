import { z } from 'zod';
import { describeBinding } from '../../documents/binding.js';
import type { SearchDeps } from '../../documents/search.js';
import { defineTool } from '../../tools/define-tool.js';
import { allDocumentTools, documentToolsets } from '../../tools/documents/bound-tools.js';
import type { ToolDefinition } from '../../tools/tool.js';

/** Needs a turn to run the nested agent in (MCP's ask_agent starts one). */
const TURN_ONLY = new Set(['ask_document']);

/**
 * The seed's document and corpus tools for MCP clients, from the same definitions: outside a turn
 * nothing is bound, so each takes the document and corpus it works on as arguments.
 */
// Each tool has its own argument type; a list of them can only erase it.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function mcpDocumentTools(deps: Pick<SearchDeps, 'rem'>): ToolDefinition<any>[] {
  return allDocumentTools(documentToolsets(deps))
    .filter((def) => !TURN_ONLY.has(def.name))
    .map((def) =>
      defineTool({
        name: def.name,
        description: `${def.description} Name the document (document_id) and the corpus (corpus_id) it works on.`,
        input: def.input!.extend({
          document_id: z.string().uuid().optional().describe('The document (for document tools).'),
          corpus_id: z.string().uuid().optional().describe('The corpus (for notes, annotations, summaries and corpus tools).'),
        }),
        ...(def.annotations ? { annotations: def.annotations } : {}),
        async handler({ document_id, corpus_id, ...args }, ctx) {
          const binding = { documentId: (document_id as string | undefined) ?? null, corpusId: (corpus_id as string | undefined) ?? null };
          await describeBinding(ctx.prisma, ctx.agent, binding);
          return def.handler(args, { ...ctx, binding });
        },
      }),
    );
}
