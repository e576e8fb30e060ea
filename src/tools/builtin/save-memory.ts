import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { saveMemory, saveMemoryInput, type SaveMemoryOutcome } from '../../rem/save-memory.js';
import type { RemService } from '../../rem/service.js';

const savedMemory = z.object({ saved: z.object({ kind: z.enum(['entity', 'moment']), key: z.string() }), edges: z.number().int() });

/**
 * The agents' `save_memory` tool (also the MCP server's): upserts one entity or moment of the
 * caller's memory with graph edges (see save-memory.ts); the row records the turn or job that wrote
 * it. Gate it like any tool (`requires_approval: true` on the agent's reference) to have a person
 * confirm each write.
 */
export function createSaveMemoryTool(rem: Pick<RemService, 'embedder' | 'tableStats'>) {
  return defineTool({
    name: 'save_memory',
    description:
      'Save something worth remembering to the user’s memory: an entity (person, project, organization, place, concept, document) ' +
      'or a moment (an episode with a time), under a stable kebab-case key, with relations to other keys. Saving an existing key ' +
      'updates the fields you give and adds the relations.',
    input: saveMemoryInput,
    output: savedMemory,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    async handler(args, ctx) {
      return savedMemoryReport(
        await saveMemory({ prisma: ctx.prisma, embedder: rem.embedder, stats: rem.tableStats }, ctx.agent, args, {
          turnId: ctx.turnId,
          jobId: ctx.jobId,
          sessionId: ctx.sessionId,
        }),
      );
    },
  });
}

function savedMemoryReport({ kind, row }: SaveMemoryOutcome) {
  return { saved: { kind, key: row.key }, edges: Array.isArray(row.graphEdges) ? row.graphEdges.length : 0 };
}
