import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentContext } from '../auth/agent-context.js';
import type { Turn } from '../db/generated/client.js';
import { RateLimitedError } from '../errors.js';
import type { ReplayOverrides } from '../turns/replay.js';
import type { TurnService } from '../turns/turn-service.js';
import type { AgentEvent, UsageTotals } from '../events/agent-event.js';
import { turnEventStream, type TurnEventsDeps } from '../events/turn-events.js';

export type EvalTurnResult =
  | { ok: true; turnId: string; text: string; usage: UsageTotals }
  | { ok: false; turnId: string; error: { code: string; message: string }; usage: UsageTotals | null };

/**
 * Runs an agent on one input as an ephemeral eval turn: a real turn (tools, approval gating,
 * delegation and recorded model calls as in any turn) that stores no messages, is marked isEval
 * and is dropped once it ended (EPHEMERAL_TURN_RETENTION_MS), so it never shows in a user's
 * sessions. The result is read from the turn's own `final` event. Nobody is there to approve a
 * tool: a turn that asks for a decision is cancelled and reported as failed instead of waiting.
 */
export async function runEvalTurn(
  deps: TurnEventsDeps & { turns: TurnService },
  ctx: AgentContext,
  input: { agent: string; model: string | null; content: string },
): Promise<EvalTurnResult> {
  const { turn } = await deps.turns.sendMessage({ ...ctx, isEval: true }, { content: input.content, agent: input.agent, model: input.model, ephemeral: true });
  return turnResult(deps, ctx, turn);
}

/**
 * Replays a turn on a fork of its own conversation (replayTurn), the fork marked isEval so it stays
 * out of the user's session lists; the original session is not written to.
 */
export async function replayEvalTurn(
  deps: TurnEventsDeps & { turns: TurnService },
  ctx: AgentContext,
  input: { turnId: string; overrides: ReplayOverrides },
): Promise<EvalTurnResult> {
  const { turn } = await deps.turns.replayTurn({ ...ctx, isEval: true }, input.turnId, input.overrides);
  return turnResult(deps, ctx, turn);
}

/** Follows a turn that has just started to its end; a turn that asks for an approval is cancelled and failed. */
async function turnResult(deps: TurnEventsDeps & { turns: TurnService }, ctx: AgentContext, turn: Turn): Promise<EvalTurnResult> {
  // Subscribed at once, before the run (which reads the database first) can have ended and been dropped.
  const events = turnEventStream(deps, turn);
  let failure: { code: string; message: string } | null = null;
  try {
    for await (const event of events) {
      const asked = approvalAsked(event);
      if (asked) {
        // cancelTurn resolves once the turn has ended.
        await deps.turns.cancelTurn(ctx, turn.id);
        const message = `${asked.agentPath.join(' > ')} asked for approval of tool ${asked.name}, which an experiment cannot give; the turn was cancelled`;
        return { ok: false, turnId: turn.id, error: { code: 'AWAITING_APPROVAL', message }, usage: null };
      }
      if (event.type === 'error' && !failure) failure = { code: event.code, message: event.message };
      if (event.type !== 'final') continue;
      if (event.status === 'COMPLETED' && !failure) return { ok: true, turnId: turn.id, text: event.content ?? '', usage: event.usage };
      return { ok: false, turnId: turn.id, error: failure ?? { code: event.status, message: `the turn ended ${event.status}` }, usage: event.usage };
    }
    return { ok: false, turnId: turn.id, error: failure ?? { code: 'INTERRUPTED', message: 'the turn ended without a final event' }, usage: null };
  } finally {
    await events.return(undefined);
  }
}

/** An approval request of the turn or of a turn it delegated to (forwarded as a `child` event). */
function approvalAsked(event: AgentEvent): Extract<AgentEvent, { type: 'approval_needed' }> | null {
  if (event.type === 'approval_needed') return event;
  return event.type === 'child' ? approvalAsked(event.event) : null;
}

/**
 * Starts an eval turn, waiting as long as the user's turn quota says (the user's own turns and
 * the minute's starts count too) instead of failing it as RATE_LIMITED; null when a shutdown came first.
 */
export async function whenAdmitted(signal: AbortSignal, start: () => Promise<EvalTurnResult>): Promise<EvalTurnResult | null> {
  for (;;) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
      await sleep(error.retryAfterMs ?? 1000, undefined, { signal }).catch(() => {});
      if (signal.aborted) return null;
    }
  }
}
