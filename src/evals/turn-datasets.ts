/** Datasets made of real turns: each example asks a turn's question again in that turn's own conversation. */
import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy, visibleTo } from '../auth/scope.js';
import type { Dataset, Prisma, PrismaClient } from '../db/generated/client.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { parseInput } from '../validation.js';
import { snapshotTurn } from './turn-source.js';

const MAX_TURNS = 200;

const fromTurnsInput = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(200),
  turnIds: z.array(z.uuid('must be a turn id')).max(MAX_TURNS, `at most ${MAX_TURNS} turns`).nullish(),
  agent: z.string().trim().min(1).max(64).nullish(),
  since: z.date().nullish(),
  until: z.date().nullish(),
  sessionIds: z.array(z.uuid('must be a session id')).max(100).nullish(),
  limit: z.int().min(1, 'must be at least 1').max(MAX_TURNS, `must be at most ${MAX_TURNS}`).nullish(),
});

export type CreateDatasetFromTurnsInput = z.input<typeof fromTurnsInput>;

/**
 * Makes a dataset of the caller's completed top-level turns: those named (each must be one the
 * caller can see, NOT_FOUND otherwise) or, without ids, their own that match the filters, oldest
 * first. Each example keeps its source turn (see turn-source.ts); no expected answer is set, so
 * evaluators judge the original and a replay alike. A selection of no turns is VALIDATION_FAILED.
 */
export async function createDatasetFromTurns(prisma: PrismaClient, ctx: AgentContext, raw: CreateDatasetFromTurnsInput): Promise<Dataset> {
  const input = parseInput(fromTurnsInput, raw, ['input']);
  const ended: Prisma.TurnWhereInput = { parentId: null, ephemeral: false, isEval: false, status: 'COMPLETED' };
  const filters: Prisma.TurnWhereInput = {
    ...(input.agent ? { agent: input.agent } : {}),
    ...(input.sessionIds ? { sessionId: { in: input.sessionIds } } : {}),
    ...(input.since || input.until ? { startedAt: { ...(input.since ? { gte: input.since } : {}), ...(input.until ? { lt: input.until } : {}) } } : {}),
  };
  const include = { finalMessage: { select: { content: true } } } as const;
  const ids = input.turnIds ? [...new Set(input.turnIds)] : null;
  const turns = ids
    ? await prisma.turn.findMany({ where: { id: { in: ids }, ...visibleTo(ctx), ...ended, ...filters }, include, orderBy: { startedAt: 'asc' } })
    : await prisma.turn.findMany({
        where: { ...ownedBy({ ...ctx, isAdmin: false }), ...ended, ...filters },
        include,
        orderBy: { startedAt: 'asc' },
        take: input.limit ?? 50,
      });
  if (ids && turns.length < ids.length)
    throw new NotFoundError(
      'Turn',
      ids.find((id) => !turns.some((t) => t.id === id)),
    );
  if (turns.length === 0)
    throw new ValidationError('input: no completed turns of yours match', [{ path: ['input'], message: 'no completed turns of yours match' }]);
  const examples = await Promise.all(turns.slice(0, input.limit ?? MAX_TURNS).map((turn) => snapshotTurn(prisma, turn)));
  return prisma.dataset.create({
    data: {
      name: input.name,
      description: `${examples.length} turn(s) replayed in their own conversations`,
      tenantId: ctx.tenantId,
      userId: ctx.userId,
      examples: {
        create: examples.map((e, i) => ({
          ord: i + 1,
          input: e.input,
          tags: [e.source.agent],
          sourceTurnId: e.source.turnId,
          source: e.source as Prisma.InputJsonObject,
        })),
      },
    },
  });
}
