import type { Prisma, PrismaClient } from '../db/generated/client.js';
import type { AgentEvent, AgentEventBody, TerminalStatus, UsageTotals } from '../events/agent-event.js';
import { appendToIdleLog, publishEvents } from '../events/event-log.js';
import type { RemPubSub } from '../events/pubsub.js';

type IdleTurn = { id: string; agent: string; depth: number; parentId: string | null; sessionId: string; agentPath: string[] };

/**
 * Appends an event to a turn that no process is running, and forwards it (as a `child` event) to
 * every ancestor, as a running parent would. Returns what to publish once the transaction commits.
 */
export async function appendToIdleTree(tx: Prisma.TransactionClient, turn: IdleTurn, body: AgentEventBody): Promise<AgentEvent[]> {
  const event = await appendToIdleLog(tx, turn, body);
  const out = [event];
  let child: IdleTurn = turn;
  const wrapped: AgentEventBody = { type: 'child', childTurnId: turn.id, childAgent: turn.agent, path: turn.agentPath, event };
  while (child.parentId) {
    const parent = await tx.turn.findUniqueOrThrow({ where: { id: child.parentId } });
    out.push(await appendToIdleLog(tx, parent, wrapped));
    child = parent;
  }
  return out;
}

/**
 * Ends a turn that no process is running (a paused turn being cancelled, or one whose process
 * died): an optional error event, then the final event, so every subscriber's stream completes.
 */
export async function finishIdleTurn(
  tx: Prisma.TransactionClient,
  turn: IdleTurn & { usage: unknown },
  status: TerminalStatus,
  error: { code: string; message: string } | null,
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  if (error) events.push(...(await appendToIdleTree(tx, turn, { type: 'error', ...error })));
  const usage = { inputTokens: 0, outputTokens: 0, requests: 0, ...(turn.usage as Partial<UsageTotals>) };
  events.push(...(await appendToIdleTree(tx, turn, { type: 'final', status, content: null, sources: [], usage })));
  await tx.turn.update({ where: { id: turn.id }, data: { status, error: error ?? undefined, checkpoint: undefined, finishedAt: new Date() } });
  return events;
}

/** Publishes events returned by the functions above, each on its own turn's channels. */
export function publishIdle(pubsub: RemPubSub, sessionId: string, events: AgentEvent[]) {
  publishEvents(pubsub, sessionId, events);
}

/**
 * Marks RUNNING turns whose process stopped sending heartbeats as INTERRUPTED. They are not
 * resumed: a half-streamed model answer or a tool call in flight cannot be repeated safely.
 */
export async function interruptOrphans(prisma: PrismaClient, pubsub: RemPubSub, staleBefore: Date): Promise<string[]> {
  const orphans = await prisma.turn.findMany({
    where: { status: 'RUNNING', OR: [{ heartbeatAt: { lt: staleBefore } }, { heartbeatAt: null, startedAt: { lt: staleBefore } }] },
    orderBy: { depth: 'desc' },
  });
  const done: string[] = [];
  for (const turn of orphans) {
    const events = await prisma.$transaction(async (tx) => {
      const claimed = await tx.turn.updateMany({ where: { id: turn.id, status: 'RUNNING' }, data: { status: 'INTERRUPTED' } });
      if (claimed.count === 0) return [];
      return finishIdleTurn(tx, turn, 'INTERRUPTED', { code: 'INTERRUPTED', message: 'The server running this turn stopped before it finished' });
    });
    if (events.length) {
      publishIdle(pubsub, turn.sessionId, events);
      done.push(turn.id);
    }
  }
  return done;
}
