import type { PrismaClient } from '../../src/db/generated/client.js';
import type { AgentEvent } from '../../src/events/agent-event.js';

/** A turn's stored events in log order, read from its chunks (turn_events rows). */
export async function storedEvents(prisma: PrismaClient, turnId: string): Promise<AgentEvent[]> {
  const chunks = await prisma.turnEventChunk.findMany({ where: { turnId }, orderBy: { seq: 'asc' }, select: { events: true } });
  return chunks.flatMap((chunk) => chunk.events as unknown as AgentEvent[]);
}
