import { visibleTo } from '../../auth/scope.js';
import type { Turn } from '../../db/generated/client.js';
import { builder } from '../builder.js';
import { EntityRef, MomentRef, ResourceRef } from './rem.js';
import { TurnRef } from './turns.js';

// Who wrote a memory row: the turn of an agent (save_memory) or a background job (dreaming).
for (const ref of [EntityRef, MomentRef, ResourceRef]) {
  builder.objectFields(ref, (t) => ({
    sourceTurn: t.loadable({
      type: TurnRef,
      nullable: true,
      description: 'The turn whose agent last wrote this row; null when a person or a job wrote it (or the turn is gone).',
      load: async (ids: string[], ctx) => {
        const turns = await ctx.prisma.turn.findMany({ where: { id: { in: ids }, ...visibleTo(ctx.viewer) } });
        return ids.map((id) => turns.find((turn) => turn.id === id) ?? null);
      },
      resolve: (row) => (row as { sourceTurnId: string | null }).sourceTurnId,
    }),
  }));
}

const MemoryWritesRef = builder.objectRef<Turn>('MemoryWrites').implement({
  description: 'Memory rows whose latest writer is this turn’s agent.',
  fields: (t) => ({
    entities: t.prismaField({
      type: ['Entity'],
      resolve: (query, turn, _args, ctx) =>
        ctx.prisma.entity.findMany({ ...query, where: { sourceTurnId: turn.id, ...visibleTo(ctx.viewer) }, orderBy: { key: 'asc' } }),
    }),
    moments: t.prismaField({
      type: ['Moment'],
      resolve: (query, turn, _args, ctx) =>
        ctx.prisma.moment.findMany({ ...query, where: { sourceTurnId: turn.id, ...visibleTo(ctx.viewer) }, orderBy: { key: 'asc' } }),
    }),
    resources: t.prismaField({
      type: ['Resource'],
      resolve: (query, turn, _args, ctx) =>
        ctx.prisma.resource.findMany({ ...query, where: { sourceTurnId: turn.id, ...visibleTo(ctx.viewer) }, orderBy: { key: 'asc' } }),
    }),
  }),
});

builder.objectField(TurnRef, 'memoryWrites', (t) => t.field({ type: MemoryWritesRef, resolve: (turn) => turn }));
