import { z } from 'zod';
import type { AgentContext } from '../../auth/agent-context.js';
import { visibleTo } from '../../auth/scope.js';
import { parseInput } from '../../validation.js';
import { normalizeKey } from '../keys.js';
import type { MemoryKind } from './kinds.js';

const filterInput = z.object({
  tags: z.array(z.string().max(100)).max(50).nullish(),
  type: z.string().max(500).nullish(),
  text: z.string().max(500).nullish(),
});
export type MemoryFilter = z.input<typeof filterInput>;

/** Prisma `where` for listing rows the caller can see, by tags (any of), type and text. */
export function memoryWhere(ctx: AgentContext, kind: MemoryKind, filter: MemoryFilter | null | undefined): Record<string, unknown> {
  const f = parseInput(filterInput, filter ?? {}, ['filter']);
  const typeColumn = kind === 'entity' ? 'entityType' : kind === 'resource' ? 'category' : 'momentType';
  const text = f.text?.trim();
  const contains = (field: string) => ({ [field]: { contains: text, mode: 'insensitive' } });
  return {
    AND: [
      visibleTo(ctx),
      ...(f.tags?.length ? [{ tags: { hasSome: f.tags } }] : []),
      ...(f.type ? [{ [typeColumn]: f.type }] : []),
      ...(text ? [{ OR: [{ key: { contains: normalizeKey(text) || text } }, contains('name'), contains('summary'), contains('content')] }] : []),
    ],
  };
}
