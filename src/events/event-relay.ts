import type { Logger } from '../logger.js';
import type { AgentEvent } from './agent-event.js';

/**
 * Carries turn events between server instances. The instance holding a turn publishes every event
 * once, as it happens; an instance whose client follows that turn, or the turn's whole session,
 * subscribes to it live, and reads what the holder has published but not yet stored from the
 * relay's short per-turn history. With one instance there is nobody to tell, and the relay does
 * nothing.
 */
export interface EventRelay {
  /** False without Redis: nothing is relayed, every turn this process runs is in its own hub. */
  readonly shared: boolean;
  /**
   * Without Redis but on a database other processes may share (PostgreSQL): a turn another process
   * runs reaches this one only through the stored log.
   */
  readonly othersOnlyInLog: boolean;
  /** Publishes an event of a turn of session `sessionId`. */
  publish(sessionId: string, event: AgentEvent): void;
  /** Calls `listener` with the turn's events published from now on; resolves once that is in effect. */
  subscribe(turn: RelayedTurn, listener: (event: AgentEvent) => void): Promise<() => void>;
  /** Calls `listener` with the events of every turn of the session published from now on; resolves once that is in effect. */
  subscribeSession(sessionId: string, listener: (event: AgentEvent) => void): Promise<() => void>;
  /** Events of the turn with seq > `after` that the holding instance published recently, oldest first. */
  recent(turnId: string, after: number): Promise<AgentEvent[]>;
  close(): Promise<void>;
}

export interface RelayedTurn {
  id: string;
  sessionId: string;
}

export const localRelay: EventRelay = {
  shared: false,
  othersOnlyInLog: false,
  publish() {},
  subscribe: async () => () => {},
  subscribeSession: async () => () => {},
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
 * Redis: live events over pub/sub, each event published on its turn's channel and on its session's
 * (plain channels, not a pattern per session follower: Redis matches every message against every
 * pattern, so 10,000 idle session followers cost 27 ms of its CPU per turn), and each
 * turn's recent events in a stream (`XADD` before `PUBLISH` on one connection, so a reader that
 * subscribes and then reads the stream misses nothing: whatever it did not read was published
 * after it subscribed).
 */
export async function openRedisRelay(url: string, logger: Logger): Promise<EventRelay> {
  const { Redis } = await import('ioredis');
  const options = { lazyConnect: true, maxRetriesPerRequest: 3 };
  const writer = new Redis(url, { ...options, enableAutoPipelining: true });
  const reader = new Redis(url, options);
  const subscriber = new Redis(url, options);
  await Promise.all([writer.connect(), reader.connect(), subscriber.connect()]);
  const turnChannel = (turnId: string) => `remgraph:turn-events:${turnId}`;
  const sessionChannel = (sessionId: string) => `remgraph:session-events:${sessionId}`;
  const stream = (turnId: string) => `remgraph:turn-log:${turnId}`;
  const expiring = new Set<string>();
  const failed = (error: unknown) => logger.error({ err: error }, 'could not relay a turn event through Redis');
  const followers = new Followers(
    (name) => subscriber.subscribe(name),
    (name) => subscriber.unsubscribe(name).catch(failed),
  );
  subscriber.on('message', (name: string, message: string) => followers.deliver(name, message));

  return {
    shared: true,
    othersOnlyInLog: false,
    publish(sessionId, event) {
      const json = JSON.stringify(event);
      const key = stream(event.turnId);
      writer.xadd(key, 'MAXLEN', '~', HISTORY_LENGTH, `0-${event.seq}`, 'e', json).catch(failed);
      if (!expiring.has(key) || event.type === 'final') {
        expiring.add(key);
        writer.expire(key, HISTORY_TTL_SECONDS).catch(failed);
        if (event.type === 'final') expiring.delete(key);
      }
      writer.publish(turnChannel(event.turnId), json).catch(failed);
      writer.publish(sessionChannel(sessionId), json).catch(failed);
    },
    subscribe: (turn, listener) => followers.add(turnChannel(turn.id), listener),
    subscribeSession: (sessionId, listener) => followers.add(sessionChannel(sessionId), listener),
    async recent(turnId, after) {
      const entries = await reader.xrange(stream(turnId), `(0-${after}`, '+');
      return entries.map(([, fields]) => JSON.parse(fields[1]!) as AgentEvent);
    },
    async close() {
      await Promise.all([writer.quit(), reader.quit(), subscriber.quit()]).catch(() => {});
    },
  };
}

/** The listeners of each channel this process subscribes to while it has any. */
class Followers {
  private readonly listeners = new Map<string, { set: Set<(event: AgentEvent) => void>; ready: Promise<unknown> }>();

  constructor(
    private readonly subscribe: (name: string) => Promise<unknown>,
    private readonly unsubscribe: (name: string) => unknown,
  ) {}

  async add(name: string, listener: (event: AgentEvent) => void): Promise<() => void> {
    let entry = this.listeners.get(name);
    if (!entry) this.listeners.set(name, (entry = { set: new Set(), ready: this.subscribe(name) }));
    const { set, ready } = entry;
    set.add(listener);
    await ready;
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(name)?.set === set) {
        this.listeners.delete(name);
        this.unsubscribe(name);
      }
    };
  }

  deliver(name: string, message: string) {
    const set = this.listeners.get(name)?.set;
    if (!set?.size) return;
    const event = JSON.parse(message) as AgentEvent;
    for (const listener of set) listener(event);
  }
}
