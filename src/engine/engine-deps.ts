import type { Config } from '../config/config.js';
import type { SqlClient } from '../db/sql-client.js';
import type { PrismaClient } from '../db/generated/client.js';
import type { EventHub } from '../events/event-hub.js';
import type { EventRelay } from '../events/event-relay.js';
import type { RemPubSub } from '../events/pubsub.js';
import type { ModelResolver } from '../llm/resolve-model.js';
import type { Logger } from '../logger.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { DocumentToolsets } from '../tools/documents/bound-tools.js';
import type { AgentRegistry } from '../agents/registry.js';
import type { TreeLease } from './tree-lease.js';
import type { TurnStore } from './turn-store.js';

/** The agents settings the engine reads (config/agents.ts documents each). */
type EngineSettings = Pick<
  Config['agents'],
  | 'defaultAgent'
  | 'historyTokenBudget'
  | 'historyCompressChars'
  | 'ephemeralRetentionMs'
  | 'contextTokenBudget'
  | 'memoryTokenBudget'
  | 'approvalTtlMs'
  | 'heartbeatMs'
  | 'maxDepth'
  | 'maxToolCallsPerResponse'
  | 'maxChildTurns'
>;

/** What the parts of the turn engine share: one set per server process. */
export interface EngineDeps {
  prisma: PrismaClient;
  /** Direct statements for the hottest reads (see db/sql-client.ts). */
  sql: SqlClient;
  pubsub: RemPubSub;
  hub: EventHub;
  relay: EventRelay;
  logger: Logger;
  agents: AgentRegistry;
  models: ModelResolver;
  tools: ToolRegistry;
  /** The tools a turn bound to a document or corpus gets (registered in `tools` too). */
  documentTools?: DocumentToolsets;
  store: TurnStore;
  lease: TreeLease;
  settings: EngineSettings;
}
