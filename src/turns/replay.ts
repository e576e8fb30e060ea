import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import { visibleTo } from '../auth/scope.js';
import type { Message, Turn } from '../db/generated/client.js';
import { isAppError, NotFoundError, ValidationError } from '../errors.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { ResolvedAgent } from '../agents/registry.js';
import type { ForkPoint } from '../sessions/fork.js';
import { parseInput } from '../validation.js';
import { answeredMessage } from './answered-message.js';
import type { EngineDeps } from '../engine/engine-deps.js';
import type { TurnOverrides } from '../engine/run-state.js';

const replayOverrides = z
  .object({
    agent: z.string().trim().min(1, 'must not be empty').max(64).nullish(),
    agentVersion: z.number().int().min(1, 'must be at least 1').nullish(),
    model: z.string().trim().min(1, 'must not be empty').max(200).nullish(),
    temperature: z.number().min(0, 'must be between 0 and 2').max(2, 'must be between 0 and 2').nullish(),
    systemPromptSuffix: z.string().trim().max(4000, 'must be at most 4000 characters').nullish(),
  })
  .nullish();

export type ReplayOverrides = z.input<typeof replayOverrides>;

/** What a replay runs, all checked before anything is stored. */
export interface ReplayPlan {
  turn: Turn;
  /** The user message the turn answered: the replay asks it again. */
  asked: Message & { content: string };
  /** The turn's session up to the message before `asked`. */
  fork: ForkPoint;
  agent: ResolvedAgent;
  model: ChatModel;
  overrides: TurnOverrides | undefined;
}

/**
 * Plans a replay of a top-level turn the caller can see (NOT_FOUND otherwise): the same agent (at
 * the turn's version) and model unless overridden. An agent version that does not exist, a model
 * that cannot be resolved, or a temperature out of range is VALIDATION_FAILED on its override.
 */
export async function planReplay(
  deps: Pick<EngineDeps, 'prisma' | 'agents' | 'models'>,
  ctx: AgentContext,
  turnId: string,
  raw: ReplayOverrides,
): Promise<ReplayPlan> {
  const path = ['overrides'];
  const input = parseInput(replayOverrides, raw, path) ?? {};
  const turn = await deps.prisma.turn.findFirst({ where: { id: turnId, parentId: null, ...visibleTo(ctx) }, include: { session: true } });
  if (!turn) throw new NotFoundError('Turn');
  const { session: source, ...row } = turn;
  const asked = await answeredMessage(deps.prisma, row);
  const at = await deps.prisma.message.findFirst({
    where: { sessionId: source.id, seq: { lt: asked.seq } },
    orderBy: { seq: 'desc' },
    select: { id: true, seq: true },
  });
  const agent = await refused(
    [...path, input.agent ? 'agent' : 'agentVersion'],
    // Another agent runs at its latest version unless one is named.
    () => deps.agents.load(ctx, input.agent ?? row.agent, input.agentVersion ?? (input.agent ? undefined : row.agentVersion)),
    input.agentVersion != null || input.agent != null,
  );
  const model = await refused(
    [...path, 'model'],
    async () => deps.models.resolve(input.model ?? row.model ?? ctx.defaultModel ?? agent.spec.model ?? null),
    true,
  );
  const overrides: TurnOverrides = {
    ...(input.temperature != null ? { temperature: input.temperature } : {}),
    ...(input.systemPromptSuffix ? { systemPromptSuffix: input.systemPromptSuffix } : {}),
  };
  return { turn: row, asked, fork: { source, at }, agent, model, overrides: Object.keys(overrides).length ? overrides : undefined };
}

/** Runs `load`; a NOT_FOUND (when `asked`, the caller named what was not found) or VALIDATION_FAILED becomes VALIDATION_FAILED at `at`. */
async function refused<T>(at: string[], load: () => Promise<T>, asked: boolean): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isAppError(error) && (error.code === 'VALIDATION_FAILED' || (asked && error.code === 'NOT_FOUND'))) {
      throw new ValidationError(`${at.join('.')}: ${error.message}`, [{ path: at, message: error.message }]);
    }
    throw error;
  }
}
