import { createPubSub, type PubSub } from '@graphql-yoga/subscription';
import type { AgentChange } from '../agents/registry.js';
import type { Session } from '../db/generated/client.js';
import type { JobStatus } from '../db/generated/enums.js';

/**
 * Every pubsub channel and its payload. Domain code publishes, GraphQL subscription fields
 * subscribe. The event target is in-process by default; a shared one (e.g. Redis) lets several
 * server instances see each other's events without changing any publisher or subscriber.
 */
export type Topics = {
  /** A session was renamed, deleted or received a message; `deleted` marks the last update. */
  'session:updated': [sessionId: string, update: SessionUpdate];
  /** Asks whichever process holds the turn's tree to cancel it. */
  'turn:cancel': [request: { turnId: string; rootId: string; requestedBy: string | null }];
  /** Asks the process holding a tree to announce decisions and resume what they unblocked. */
  'tree:poke': [request: { rootId: string; holder: string }];
  /** A session was deleted: runs in it stop. */
  'session:deleted': [change: { sessionId: string }];
  /** An approval was created or decided in a tenant (review consoles refresh). */
  'approvals:changed': [tenantId: string, change: { sessionId: string; turnId: string; approvalId?: string }];
  /** A registered agent changed: drop cached copies. */
  'agents:changed': [change: AgentChange];
  /** An experiment stored a result or finished. */
  'experiment:progress': [experimentId: string, change: { experimentId: string }];
  /** A job was claimed, reported progress or was settled (jobProgress follows it without reading the row again). */
  'job:changed': [jobId: string, change: JobChange];
  /** Progress of a file being ingested, by `<tenant>:<user>:<progressId>` (the id its uploader chose). */
  'ingest:progress': [channel: string, progress: IngestProgress];
};

export interface IngestProgress {
  stage: 'extracting' | 'embedding' | 'storing' | 'done' | 'failed';
  /** Chunks of the file, once known. */
  chunks: number | null;
}

/** A job's state after a change; `revision` orders the changes of one job (a subscriber skips those it has seen). */
export interface JobChange {
  revision: number;
  status: JobStatus;
  attempts: number;
  progress: unknown;
  result: unknown;
  error: unknown;
  /** ISO 8601 (a change is plain JSON, as a Redis event target carries it). */
  startedAt: string | null;
  finishedAt: string | null;
}

interface SessionUpdate {
  session: Session;
  deleted: boolean;
}

export type RemPubSub = PubSub<Topics>;

export interface PubSubHandle {
  pubsub: RemPubSub;
  kind: 'in-process' | 'redis';
  close(): Promise<void>;
}

/**
 * In-process by default; with a Redis URL, every server instance sharing that Redis sees every
 * event (turn streams, cancellations, approval and agent changes), whichever instance runs the turn.
 */
export async function openPubSub(redisUrl?: string): Promise<PubSubHandle> {
  if (!redisUrl) return { pubsub: createPubSub<Topics>(), kind: 'in-process', close: async () => {} };
  // Loaded only for Redis: an in-process start does not pay for the client.
  const [{ Redis }, { createRedisEventTarget }] = await Promise.all([import('ioredis'), import('@graphql-yoga/redis-event-target')]);
  const options = { lazyConnect: true, maxRetriesPerRequest: 3 };
  const publishClient = new Redis(redisUrl, options);
  const subscribeClient = new Redis(redisUrl, options);
  await Promise.all([publishClient.connect(), subscribeClient.connect()]);
  const eventTarget = createRedisEventTarget({ publishClient, subscribeClient });
  return {
    pubsub: createPubSub<Topics>({ eventTarget }),
    kind: 'redis',
    async close() {
      await Promise.all([publishClient.quit(), subscribeClient.quit()]).catch(() => {});
    },
  };
}
