import { createPubSub, type PubSub } from '@graphql-yoga/subscription';
import type { Session } from '../db/generated/client.js';

/**
 * Every pubsub channel and its payload. Domain code publishes, GraphQL subscription fields
 * subscribe. The event target is in-process by default; a shared one (e.g. Redis) lets several
 * server instances see each other's events without changing any publisher or subscriber.
 */
export type Topics = {
  /** A session was renamed, deleted or received a message; `deleted` marks the last update. */
  'session:updated': [sessionId: string, update: SessionUpdate];
};

export interface SessionUpdate {
  session: Session;
  deleted: boolean;
}

export type RemPubSub = PubSub<Topics>;

export function createInProcessPubSub(): RemPubSub {
  return createPubSub<Topics>();
}
