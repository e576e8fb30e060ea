import type { AgentEvent } from './agent-event.js';
import type { EventHub } from './event-hub.js';
import { Inbox, stoppable } from './inbox.js';

/**
 * Every event of every turn of a session (child agents' turns included) published from now on,
 * by whichever instance holds the turn. Resolves once it is following them.
 */
export async function sessionEventStream(hub: EventHub, sessionId: string): Promise<AsyncGenerator<AgentEvent>> {
  const stop = new AbortController();
  const inbox = new Inbox<AgentEvent>(stop.signal);
  const unlisten = await hub.listenSession(sessionId, (event) => inbox.push(event));
  // Also when the stream is stopped before it was ever read.
  stop.signal.addEventListener('abort', unlisten, { once: true });
  return stoppable(async function* (signal) {
    while (!signal.aborted) yield* await inbox.next();
  }, stop);
}
