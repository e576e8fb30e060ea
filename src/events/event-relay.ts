import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import type { AgentEvent } from './agent-event.js';

/**
 * Carries turn events between server instances. The instance holding a turn publishes every event
 * as it happens; an instance whose client follows that turn subscribes to it live and reads what
 * the holder has published but not yet stored from the relay's short per-turn history. With one
 * instance there is nobody to tell, and the relay does nothing.
 */
export interface EventRelay {
  /** False without Redis: nothing is relayed, every turn this process runs is in its own hub. */
  readonly shared: boolean;
  /**
   * Without Redis but on a database other processes may share (PostgreSQL): a turn another process
   * runs reaches this one only through the stored log.
   */
  readonly othersOnlyInLog: boolean;
  publish(event: AgentEvent): void;
  /** Calls `listener` with the turn's events published from now on; resolves once that is in effect. */
  subscribe(turnId: string, listener: (event: AgentEvent) => void): Promise<() => void>;
  /** Events of the turn with seq > `after` that the holding instance published recently, oldest first. */
  recent(turnId: string, after: number): Promise<AgentEvent[]>;
  close(): Promise<void>;
}

export const localRelay: EventRelay = {
  shared: false,
  othersOnlyInLog: false,
  publish() {},
  subscribe: async () => () => {},
  recent: async () => [],
  close: async () => {},
};

/** The relay of a process that shares its PostgreSQL database with others but has no Redis. */
export const logOnlyRelay: EventRelay = { ...localRelay, othersOnlyInLog: true };

/** How many recent events per turn Redis keeps for readers on other instances. */
const HISTORY_LENGTH = 20_000;
/** How long a turn's history outlives its last event. */
const HISTORY_TTL_SECONDS = 3600;

/**
 * Redis: live events over pub/sub, and each turn's recent events in a stream (`XADD` before
 * `PUBLISH` on one connection, so a reader that subscribes and then reads the stream misses
 * nothing: whatever it did not read was published after it subscribed).
 */
export async function openRedisRelay(url: string, logger: Logger): Promise<EventRelay> {
  const options = { lazyConnect: true, maxRetriesPerRequest: 3 };
  const writer = new Redis(url, { ...options, enableAutoPipelining: true });
  const reader = new Redis(url, options);
  const subscriber = new Redis(url, options);
  await Promise.all([writer.connect(), reader.connect(), subscriber.connect()]);
  const listeners = new Map<string, { set: Set<(event: AgentEvent) => void>; ready: Promise<unknown> }>();
  const channel = (turnId: string) => `remgraph:turn:${turnId}`;
  const stream = (turnId: string) => `remgraph:turn-log:${turnId}`;
  const expiring = new Set<string>();

  subscriber.on('message', (name: string, message: string) => {
    const set = listeners.get(name)?.set;
    if (!set?.size) return;
    const event = JSON.parse(message) as AgentEvent;
    for (const listener of set) listener(event);
  });
  const failed = (error: unknown) => logger.error({ err: error }, 'could not relay a turn event through Redis');

  return {
    shared: true,
    othersOnlyInLog: false,
    publish(event) {
      const json = JSON.stringify(event);
      const key = stream(event.turnId);
      writer.xadd(key, 'MAXLEN', '~', HISTORY_LENGTH, `0-${event.seq}`, 'e', json).catch(failed);
      if (!expiring.has(key) || event.type === 'final') {
        expiring.add(key);
        writer.expire(key, HISTORY_TTL_SECONDS).catch(failed);
        if (event.type === 'final') expiring.delete(key);
      }
      writer.publish(channel(event.turnId), json).catch(failed);
    },
    async subscribe(turnId, listener) {
      const name = channel(turnId);
      let entry = listeners.get(name);
      if (!entry) listeners.set(name, (entry = { set: new Set(), ready: subscriber.subscribe(name) }));
      const { set, ready } = entry;
      set.add(listener);
      await ready;
      return () => {
        set.delete(listener);
        if (set.size === 0 && listeners.get(name)?.set === set) {
          listeners.delete(name);
          subscriber.unsubscribe(name).catch(failed);
        }
      };
    },
    async recent(turnId, after) {
      const entries = await reader.xrange(stream(turnId), `(0-${after}`, '+');
      return entries.map(([, fields]) => JSON.parse(fields[1]!) as AgentEvent);
    },
    async close() {
      await Promise.all([writer.quit(), reader.quit(), subscriber.quit()]).catch(() => {});
    },
  };
}
