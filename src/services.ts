import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createIdentify, type Identify } from './auth/identify.js';
import { ConfigError, type Config } from './config/config.js';
import { ValidationError } from './errors.js';
import type { Database } from './db/database.js';
import { applyMigrations } from './db/migrations.js';
import { warmUp } from './db/warm-up.js';
import { AgentRegistry, type AgentFile } from './agents/registry.js';
import { ApprovalService } from './turns/approvals.js';
import { startMaintenance } from './turns/maintenance.js';
import { forgetExpiredRequests } from './turns/turn-requests.js';
import { Supervisor } from './engine/supervisor.js';
import { TreeLease } from './engine/tree-lease.js';
import { TurnService } from './turns/turn-service.js';
import { TurnQuota } from './engine/quota.js';
import { loadRoutingFile } from './routing/routing-file.js';
import { Router } from './routing/router.js';
import { profileAgents } from './routing/profile-agents.js';
import { runDetached } from './engine/detached-run.js';
import { DREAM_JOB, dreamHandler, scheduleDreams } from './dreaming/dream.js';
import { EXPERIMENT_JOB, experimentHandler } from './evals/experiments.js';
import { JobQueue } from './jobs/job-queue.js';
import { JobWorker, type JobHandler } from './jobs/job-worker.js';
import { REEMBED_JOB, reembedHandler } from './rem/reembed-job.js';
import { IMPORT_JOB, importHandler, requestImport } from './rem/import/import-job.js';
import { TurnStore } from './engine/turn-store.js';
import { EventHub } from './events/event-hub.js';
import { localRelay, logOnlyRelay, openRedisRelay, type EventRelay } from './events/event-relay.js';
import { openPubSub, type PubSubHandle, type RemPubSub } from './events/pubsub.js';
import type { AppServices } from './graphql/context.js';
import { createModelResolver } from './llm/resolve-model.js';
import { builtinTools } from './tools/builtin/builtin-tools.js';
import { allDocumentTools, documentToolsets } from './tools/documents/bound-tools.js';
import { ToolRegistry } from './tools/registry.js';
import { McpToolbox } from './mcp/client/mcp-toolbox.js';
import type { Logger } from './logger.js';
import { createEmbeddingProvider } from './rem/embeddings/create.js';
import { RemService } from './rem/service.js';
import { TableStats } from './rem/table-stats.js';
import { ingestFile, type IngestFileInput } from './rem/ingest/ingest-file.js';
import type { AgentContext } from './auth/agent-context.js';
import type { InboundEmail } from './db/generated/client.js';
import { agentProcessHandler, followAfterDecision } from './inbound/agent-process.js';
import { emailTools } from './inbound/email-tools.js';
import { EmailDrafts } from './inbound/drafts.js';
import type { InboundMessage } from './inbound/inbound-message.js';
import { AGENT_PROCESS_JOB, intake } from './inbound/intake.js';
import { createMailer } from './inbound/mailer.js';
import { pipelineHandlers } from './inbound/pipeline.js';

/** The app's services plus the parts only the app itself handles (identity, shutdown). */
interface Services extends AppServices {
  /** Who is asking, from a request's headers (bearer token, or identity headers in header mode). */
  identify: Identify;
  supervisor: Supervisor;
  /** Connections to the MCP servers agents take tools from. */
  mcp: McpToolbox;
  worker: JobWorker;
  /** Stores an inbound email and queues its job (POST /inbound/email). */
  intakeEmail(message: InboundMessage): Promise<{ email: InboundEmail; duplicate: boolean }>;
}

export interface OpenServices {
  services: Services;
  /**
   * Starts the background work (maintenance, job worker, dream schedule): called once the server
   * listens, so that their first statements (and Prisma's first query compilations) do not delay it.
   */
  start(): void;
  /**
   * Stops the background work (maintenance, dream schedule, job worker, running turns, MCP
   * servers), then waits for `drained` (the HTTP side finishing the requests that still use the
   * services), then closes the event relay, pubsub and the database, in that order.
   */
  close(drained: () => Promise<void>): Promise<void>;
}

/**
 * Applies pending migrations to `db`, connects pubsub and the event relay, builds and wires the
 * services, and starts their background work. On failure it closes what it opened, `db` included.
 * `agentFiles`: the agent files, as readAgentFiles reads them.
 */
export async function openServices(config: Config, db: Database, logger: Logger, agentFiles: Promise<AgentFile[]>): Promise<OpenServices> {
  try {
    const applied = await applyMigrations(db);
    if (applied.length) logger.info({ migrations: applied }, 'applied database migrations');
  } catch (error) {
    await db.close();
    throw error;
  }
  await warnIfSuperuser(db, logger);
  if (config.auth.mode === 'headers') {
    logger.warn('JWT auth is not configured: identity is taken from X-User-Id / X-Tenant-Id headers (development only)');
  }

  let bus: PubSubHandle | undefined;
  // PGlite is one process's own; other processes may share a PostgreSQL database.
  let relay: EventRelay = db.backend === 'postgres' ? logOnlyRelay : localRelay;
  let services: Services;
  // Started while the database opened (openDatabase's `warmUp`), or now, while the services are
  // built: the database works on its own thread (PGlite) or server.
  const warming = db.warmedUp ?? warmUp(db);
  warming.catch(() => {}); // awaited below, unless building the services fails first
  try {
    bus = await openPubSub(config.pubsub.redisUrl);
    if (config.pubsub.redisUrl) relay = await openRedisRelay(config.pubsub.redisUrl, logger);
    services = await createServices(config, db, bus.pubsub, relay, logger, agentFiles);
    logger.info({ warmUpMs: Math.round(await warming) }, "started Prisma's client");
  } catch (error) {
    await relay.close();
    await bus?.close();
    await db.close();
    throw error;
  }
  const pubsubHandle = bus;
  if (bus.kind === 'redis') logger.info('pubsub: Redis (events are shared with every instance using the same REDIS_URL)');

  let stopMaintenance = async () => {};
  let dreams: NodeJS.Timeout | undefined;
  const start = () => {
    stopMaintenance = startMaintenance({
      approvals: services.approvals,
      supervisor: services.supervisor,
      logger,
      intervalMs: config.agents.sweepIntervalMs,
      tidy: async () => {
        await forgetExpiredRequests(db.sql);
        await db.tidy?.();
      },
    });
    services.worker.start();
    dreams = startDreamSchedule(services, config.workflow.dreamIntervalMs, logger);
  };

  const close = async (drained: () => Promise<void>) => {
    await stopMaintenance();
    clearInterval(dreams);
    await services.worker.stop();
    await services.supervisor.shutdown();
    await services.mcp.close();
    await drained();
    await relay.close();
    await pubsubHandle.close();
    await db.close();
  };
  return { services, start, close };
}

async function createServices(
  config: Config,
  db: Database,
  pubsub: RemPubSub,
  relay: EventRelay,
  logger: Logger,
  agentFiles: Promise<AgentFile[]>,
): Promise<Services> {
  const identify = createIdentify(config.auth);
  const rem = new RemService(
    {
      prisma: db.prisma,
      sql: db.sql,
      embedder: createEmbeddingProvider(config.rem.embedding),
      interruptAfter: db.interruptAfter,
      tableStats: new TableStats(db.prisma, config.rem.analyzeAfterRows, (err, table) =>
        logger.warn({ err, table }, 'ANALYZE after a bulk memory write failed'),
      ),
    },
    config.rem,
  );
  const mcp = new McpToolbox(config.mcp.servers, logger);
  const documentTools = documentToolsets({ rem });
  const mailer = createMailer(config.inbound);
  const tools = new ToolRegistry(
    [...builtinTools({ rem }), ...allDocumentTools(documentTools), ...emailTools(mailer)],
    (error, tool) => logger.error({ err: error, tool }, 'tool failed'),
    mcp,
  );
  const models = createModelResolver(config.llm);
  const agents = await AgentRegistry.create(
    {
      prisma: db.prisma,
      pubsub,
      logger,
      toolExists: (ref) => tools.knows(ref),
      maxYamlBytes: config.security.maxYamlBytes,
    },
    agentFiles,
  );
  const processId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const liveness = await db.liveness(processId, (err) =>
    logger.error({ err }, 'this process may look stopped to others, who then take over its turn trees and jobs'),
  );
  const hub = new EventHub({ prisma: db.prisma, sql: db.sql, eventFlushMs: config.database.eventFlushMs, relay, logger });
  const engine = {
    prisma: db.prisma,
    sql: db.sql,
    pubsub,
    hub,
    relay,
    logger,
    agents,
    models,
    tools,
    documentTools,
    store: new TurnStore(db.prisma, db.sql, processId),
    lease: new TreeLease(db.prisma, processId, liveness),
    settings: config.agents,
  };
  const supervisor = new Supervisor(engine);
  const routing = await routingFile(config, { agents, tools, mcp });
  const router = new Router(
    { agents: engine.agents, logger: engine.logger, runClassifier: (input) => runDetached(engine, { ...input, callType: 'router' }) },
    routing.rules,
    { defaultAgent: config.agents.defaultAgent, classifierAgent: config.workflow.classifierAgent },
  );
  const quota = new TurnQuota(db.sql, config.security.quotas);
  const turns = new TurnService(engine, supervisor, quota, router);
  const queue = new JobQueue(db.prisma, processId, pubsub, liveness);
  const approvals = new ApprovalService({
    prisma: db.prisma,
    pubsub,
    logger,
    afterDecision: async (rootId) => {
      await supervisor.afterDecision(rootId);
      await followAfterDecision(db.prisma, queue, rootId);
    },
    settings: config.agents,
  });
  if (models.defaultModelId === 'demo') {
    logger.warn('No model provider configured: agents answer with the offline demo model (set OPENAI_API_KEY)');
  }
  const memory = { prisma: db.prisma, embedder: rem.embedder, stats: rem.tableStats };
  const evals = { ...engine, pubsub, queue, turns, quota };
  const handlers: Record<string, JobHandler> = {
    [DREAM_JOB]: dreamHandler({ ...engine, memory, agentName: config.workflow.dreamAgent, compactKeepMessages: config.workflow.compactKeepMessages }),
    [EXPERIMENT_JOB]: experimentHandler(evals),
    [REEMBED_JOB]: reembedHandler({ ...memory, stats: rem.tableStats, queue, batchSize: config.rem.reembedBatchSize }),
    [IMPORT_JOB]: importHandler({ ...memory, sql: db.sql, backend: db.backend, queue, settings: config.rem.import }),
    [AGENT_PROCESS_JOB]: agentProcessHandler({ prisma: db.prisma, turns, rules: routing.rules }),
    ...pipelineHandlers({ ...engine, queue, classifierAgent: 'email-classifier', drafterAgent: 'email-drafter' }),
  };
  const worker = new JobWorker(queue, pick(handlers, config.workflow.jobs.kinds), config.workflow.jobs, logger);
  queue.onEnqueued = () => worker.wake();
  const files = (ctx: AgentContext, input: IngestFileInput) => ingestFile({ prisma: db.prisma, embedder: rem.embedder }, ctx, input, config.ingest);
  // Last: nothing after this may fail and leave the MCP servers' processes running.
  await mcp.connect();
  return {
    prisma: db.prisma,
    sql: db.sql,
    pubsub,
    identify,
    agents,
    models,
    turns,
    quota,
    approvals,
    hub,
    relay,
    rem,
    supervisor,
    mcp,
    queue,
    worker,
    evals,
    ingestFile: files,
    importFile: (ctx, file) => requestImport(queue, ctx, file, config.ingest.maxBytes),
    emailDrafts: new EmailDrafts({ prisma: db.prisma, mailer }),
    intakeEmail: (message) => intake({ prisma: db.prisma, queue, router, tenantId: config.inbound.tenantId }, message),
  };
}

function pick<T>(all: Record<string, T>, names: string[]): Record<string, T> {
  return Object.fromEntries(Object.entries(all).filter(([name]) => names.includes(name)));
}

/** Queues a dream for every user with new conversation every `intervalMs` (0 = never). */
function startDreamSchedule(services: Services, intervalMs: number, logger: Logger): NodeJS.Timeout | undefined {
  if (intervalMs === 0) return undefined;
  const timer = setInterval(() => void scheduleDreams(services).catch((error) => logger.warn({ err: error }, 'could not schedule dreams')), intervalMs);
  timer.unref();
  return timer;
}

/**
 * routing.yaml's rules, with its profiles defined as agents; a file that is missing or invalid
 * (a tool no one provides, a missing prompt file, an unknown profile) stops start-up with its
 * located problems. A profile's tools may be an MCP server's, so the servers connect first (and
 * are closed again when the file is refused).
 */
async function routingFile(config: Config, deps: { agents: AgentRegistry; tools: ToolRegistry; mcp: McpToolbox }) {
  if (!config.workflow.routingFile) return { rules: [], profiles: [] };
  await deps.mcp.connect();
  try {
    const file = await loadRoutingFile(config.workflow.routingFile, {
      promptExists: (path) => existsSync(path),
      toolExists: (name) => deps.tools.has(name) || deps.mcp.serverOf(name) !== undefined,
      agentExists: (name) => deps.agents.hasFile(name),
    });
    deps.agents.define(await profileAgents(file.profiles, (name) => (deps.tools.has(name) ? undefined : deps.mcp.serverOf(name))));
    return file;
  } catch (error) {
    await deps.mcp.close();
    const problems =
      error instanceof ValidationError
        ? error.issues.map((i) => `${i.path.join('.')}: ${i.message} (line ${i.line ?? '?'}, column ${i.column ?? '?'})`)
        : [(error as Error).message];
    throw new ConfigError(problems.map((p) => `ROUTING_FILE ${config.workflow.routingFile}: ${p}`));
  }
}

/** A superuser can switch off the SQL-mode sandbox (SET ROLE, DDL); docs/security.md shows a least-privilege role. */
async function warnIfSuperuser(db: Database, logger: Logger): Promise<void> {
  if (db.backend !== 'postgres') return;
  const [role] = await db.prisma.$queryRaw<
    { name: string; superuser: boolean }[]
  >`SELECT current_user AS name, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`;
  if (role?.superuser) {
    logger.warn({ role: role.name }, 'connected to PostgreSQL as a superuser: use a least-privilege role (docs/security.md, "PostgreSQL role")');
  }
}
