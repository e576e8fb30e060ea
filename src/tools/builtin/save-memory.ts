import type { ToolDefinition } from '../tool.js';
import { saveMemory, type SaveMemoryInput, type SaveMemoryOutcome } from '../../rem/save-memory.js';
import type { RemService } from '../../rem/service.js';

const edge = {
  type: 'object',
  properties: {
    dst: { type: 'string', minLength: 1, maxLength: 300, description: 'Key of the related entity, e.g. "sarah-chen".' },
    rel_type: { type: 'string', minLength: 1, maxLength: 100, description: 'Snake-case relation, e.g. works_on, reports_to.' },
    weight: { type: 'number', minimum: 0, maximum: 1 },
  },
  required: ['dst', 'rel_type'],
  additionalProperties: false,
};

/**
 * The agents' `save_memory` tool: upserts one entity or moment of the user's memory with graph
 * edges (see save-memory.ts); the row records the turn that wrote it. Gate it like any tool
 * (`requires_approval: true` on the agent's reference) to have a person confirm each write.
 */
export function createSaveMemoryTool(rem: Pick<RemService, 'embedder' | 'tableStats'>): ToolDefinition<SaveMemoryInput> {
  return {
    name: 'save_memory',
    description:
      'Save something worth remembering to the user’s memory: an entity (person, project, organization, place, concept, document) ' +
      'or a moment (an episode with a time), under a stable kebab-case key, with relations to other keys. Saving an existing key ' +
      'updates the fields you give and adds the relations.',
    parameters: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['entity', 'moment'] },
        key: { type: 'string', minLength: 1, maxLength: 300, description: 'Stable key, e.g. "sarah-chen" or "q3-budget-review-2026-02".' },
        name: { type: 'string', maxLength: 500 },
        summary: { type: 'string', maxLength: 10000 },
        content: { type: 'string', maxLength: 100000 },
        entity_type: { type: 'string', maxLength: 500, description: 'Entities only.' },
        tags: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 100 }, maxItems: 50 },
        starts_at: { type: 'string', maxLength: 64, description: 'Moments only (ISO 8601).' },
        ends_at: { type: 'string', maxLength: 64, description: 'Moments only (ISO 8601).' },
        edges: { type: 'array', items: edge, maxItems: 100 },
      },
      required: ['kind', 'key'],
      additionalProperties: false,
    },
    async handler(args, ctx) {
      return savedMemoryReport(
        await saveMemory({ prisma: ctx.prisma, embedder: rem.embedder, stats: rem.tableStats }, ctx.agent, args, {
          turnId: ctx.turnId,
          jobId: ctx.jobId,
          sessionId: ctx.sessionId,
        }),
      );
    },
  };
}

/** What a save_memory call answers, to an agent or to an MCP client alike. */
export function savedMemoryReport({ kind, row }: SaveMemoryOutcome) {
  return { saved: { kind, key: row.key }, edges: Array.isArray(row.graphEdges) ? row.graphEdges.length : 0 };
}
