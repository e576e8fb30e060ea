import type { PrismaClient } from '../db/generated/client.js';
import type { AgentEvent } from './agent-event.js';
import { MAX_FLUSH_WAIT_MS } from './event-writer.js';
import type { RemPubSub } from './pubsub.js';

export interface EventStreamDeps {
  prisma: PrismaClient;
  pubsub: RemPubSub;
  /** How long events may sit unwritten in a writer's batch (the log's flush interval). */
  flushIntervalMs: number;
}

const GAP_RETRY_MS = 10;
const GAP_GIVE_UP_MS = 15_000;
const TERMINAL = new Set(['COMPLETED', 'MAX_ITERATIONS', 'ERROR', 'CANCELLED', 'INTERRUPTED']);

/**
 * A turn's events with seq > `after`: first those already in the log, then live ones, in seq
 * order with no gap and no duplicate, ending after the turn's `final` event.
 *
 * Live events are published before their batch is written, so at the switch-over a subscriber can
 * see event n+2 live while n+1 is not yet readable. Events are therefore held until they are
 * contiguous, and missing ones are read from the log once their batch lands, which happens within
 * one flush interval on whichever process runs the turn.
 */
export async function* turnEventStream(deps: EventStreamDeps, turnId: string, after = 0): AsyncGenerator<AgentEvent> {
  const live = deps.pubsub.subscribe('turn:event', turnId);
  const held = new Map<number, AgentEvent>();
  let last = after;
  let wake: (() => void) | undefined;
  let liveDone = false;
  const pump = (async () => {
    for await (const event of live) {
      if (event.seq > last) held.set(event.seq, event);
      wake?.();
    }
    liveDone = true;
    wake?.();
  })();
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const readInto = async (upTo?: number) => {
    for (const event of await readLog(deps.prisma, turnId, last, upTo)) if (event.seq > last) held.set(event.seq, event);
  };

  try {
    const turn = await deps.prisma.turn.findUnique({ where: { id: turnId }, select: { status: true, lastSeq: true } });
    if (!turn) return;
    await readInto();
    if (TERMINAL.has(turn.status) && after >= turn.lastSeq) return;
    // One more read once any batch pending at subscription time is written catches events
    // published just before we subscribed.
    let catchUpAt = Date.now() + Math.max(deps.flushIntervalMs, MAX_FLUSH_WAIT_MS) * 2 + 50;
    let gapSince = 0;
    while (true) {
      while (held.has(last + 1)) {
        const event = held.get(last + 1)!;
        held.delete(last + 1);
        last = event.seq;
        gapSince = 0;
        yield event;
        if (event.type === 'final') return;
      }
      if (liveDone) return;
      if (held.size > 0) {
        gapSince ||= Date.now();
        if (Date.now() - gapSince > GAP_GIVE_UP_MS) {
          throw new Error(`Events after seq ${last} of turn ${turnId} never reached the log`);
        }
        await sleep(GAP_RETRY_MS);
        await readInto(Math.min(...held.keys()) - 1);
      } else if (catchUpAt) {
        await sleep(Math.max(1, catchUpAt - Date.now()));
        if (Date.now() >= catchUpAt) {
          catchUpAt = 0;
          await readInto();
        }
      } else {
        await sleep(60_000);
      }
    }
  } finally {
    await live.return?.();
    await pump.catch(() => {});
  }
}

/** Logged events of a turn with seq in (after, upTo], oldest first. */
export async function readLog(prisma: PrismaClient, turnId: string, after: number, upTo?: number, limit?: number): Promise<AgentEvent[]> {
  const rows = await prisma.turnEvent.findMany({
    where: { turnId, seq: upTo === undefined ? { gt: after } : { gt: after, lte: upTo } },
    orderBy: { seq: 'asc' },
    take: limit,
    select: { payload: true },
  });
  return rows.map((row) => row.payload as unknown as AgentEvent);
}
