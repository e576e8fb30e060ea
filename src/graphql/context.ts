import type { EmailDrafts } from '../inbound/drafts.js';
import type { ApprovalService } from '../turns/approvals.js';
import type { AgentRegistry } from '../agents/registry.js';
import type { TurnService } from '../turns/turn-service.js';
import type { TurnQuota } from '../engine/quota.js';
import type { AgentContext } from '../auth/agent-context.js';
import type { Job, PrismaClient } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import type { EventHub } from '../events/event-hub.js';
import type { EventRelay } from '../events/event-relay.js';
import type { RemPubSub } from '../events/pubsub.js';
import type { ExperimentDeps } from '../evals/experiments.js';
import type { JobQueue } from '../jobs/job-queue.js';
import type { RemService } from '../rem/service.js';
import type { ModelResolver } from '../llm/resolve-model.js';
import type { IngestFileInput, IngestFileResult } from '../rem/ingest/ingest-file.js';

/** What every resolver gets: who is asking, and the services of this server instance. */
export interface GraphQLContext extends AppServices {
  viewer: AgentContext;
}

/** The long-lived services of one server instance, shared by every request. */
export interface AppServices {
  prisma: PrismaClient;
  /** Direct statements for the hottest reads (see db/sql-client.ts). */
  sql: SqlClient;
  pubsub: RemPubSub;
  agents: AgentRegistry;
  /** Resolves `provider:model` names to chat models (one-shot extraction calls them directly). */
  models: ModelResolver;
  turns: TurnService;
  /** Per-user limits on model-spending requests (turns, extractions). */
  quota: TurnQuota;
  approvals: ApprovalService;
  /** Numbers, stores and delivers turn events (turnEvents reads through it). */
  hub: EventHub;
  /** Turn events of other server instances (REDIS_URL). */
  relay: EventRelay;
  /** REM memory queries (LOOKUP, FUZZY, SEARCH, TRAVERSE, SQL) and the embedding provider. */
  rem: RemService;
  /** Ingests a file into REM as the caller (INGEST_* settings applied). */
  ingestFile: (ctx: AgentContext, input: IngestFileInput) => Promise<IngestFileResult>;
  /** Checks an uploaded JSONL file and queues its import as the caller (INGEST_MAX_FILE_BYTES applied). */
  importFile: (ctx: AgentContext, file: { name: string; bytes: Uint8Array }) => Promise<Job>;
  /** Background jobs (dreaming, experiments, re-embeds, imports). */
  queue: JobQueue;
  /** What experiments need: agents, models, tools, the job queue. */
  evals: ExperimentDeps;
  /** People's edits, sends and discards of inbound email drafts. */
  emailDrafts: EmailDrafts;
}
