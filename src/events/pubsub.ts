import { createPubSub, type PubSub } from '@graphql-yoga/subscription';
import type { Session } from '../db/generated/client.js';
import type { AgentEvent } from './agent-event.js';

/**
 * Every pubsub channel and its payload. Domain code publishes, GraphQL subscription fields
 * subscribe. The event target is in-process by default; a shared one (e.g. Redis) lets several
 * server instances see each other's events without changing any publisher or subscriber.
 */
export type Topics = {
  /** A session was renamed, deleted or received a message; `deleted` marks the last update. */
  'session:updated': [sessionId: string, update: SessionUpdate];
  /** Every event of one turn, in seq order, as it happens. */
  'turn:event': [turnId: string, event: AgentEvent];
  /** Every event of every turn of a session. */
  'session:event': [sessionId: string, event: AgentEvent];
  /** Asks whichever process runs the turn to cancel it. */
  'turn:cancel': [request: { turnId: string; requestedBy: string | null }];
  /** An approval was created or decided in a tenant (review consoles refresh). */
  'approvals:changed': [tenantId: string, change: { sessionId: string; turnId: string; approvalId?: string }];
  /** A registered agent changed: drop cached copies. */
  'agents:changed': [change: { tenantId: string; name: string }];
};

export interface SessionUpdate {
  session: Session;
  deleted: boolean;
}

export type RemPubSub = PubSub<Topics>;

export function createInProcessPubSub(): RemPubSub {
  return createPubSub<Topics>();
}
