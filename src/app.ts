import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import { createIdentify } from './auth/identify.js';
import { ConfigError, type Config } from './config.js';
import { ValidationError } from './errors.js';
import { openDatabase, type Database } from './db/database.js';
import { applyMigrations, pendingMigrations } from './db/migrations.js';
import { AgentRegistry } from './agents/registry.js';
import { ApprovalService } from './engine/approvals.js';
import { startMaintenance } from './engine/maintenance.js';
import { Supervisor } from './engine/supervisor.js';
import { TreeLease } from './engine/tree-lease.js';
import { TurnService } from './engine/turns.js';
import { TurnQuota } from './engine/quota.js';
import { loadRoutingFile } from './routing/routing-file.js';
import { Router } from './routing/router.js';
import { runDetached } from './engine/detached-run.js';
import { DREAM_JOB, dreamHandler, scheduleDreams } from './dreaming/dream.js';
import { EXPERIMENT_JOB, experimentHandler } from './evals/experiments.js';
import { JobQueue } from './jobs/job-queue.js';
import { JobWorker, type JobHandler } from './jobs/job-worker.js';
import { REEMBED_JOB, reembedHandler } from './rem/reembed-job.js';
import { TurnStore } from './engine/turn-store.js';
import { EventHub } from './events/event-hub.js';
import { localRelay, logOnlyRelay, openRedisRelay, type EventRelay } from './events/event-relay.js';
import { openPubSub, type PubSubHandle, type RemPubSub } from './events/pubsub.js';
import type { AppServices } from './graphql/context.js';
import { createModelResolver } from './llm/resolve-model.js';
import { builtinTools } from './tools/builtin/index.js';
import { ToolRegistry } from './tools/registry.js';
import { McpToolbox } from './mcp/client/mcp-toolbox.js';
import { createSearchTool } from './tools/builtin/search.js';
import { createSaveMemoryTool } from './tools/builtin/save-memory.js';
import { createGraphQLServer, GRAPHQL_PATH, serveGraphQLOverWebSocket } from './graphql/server.js';
import { graphiqlOptions } from './graphql/graphiql.js';
import { SocketQuotas } from './graphql/socket-quotas.js';
import { createChatApp } from './http/chat-app.js';
import { createOpenAIRoutes } from './http/openai/routes.js';
import { createMcpRoute } from './mcp/server/route.js';
import { createOriginPolicy } from './http/origin-policy.js';
import { readBodyWithin } from './http/request-body.js';
import { sendJson } from './http/json-body.js';
import { createLogger, type Logger } from './logger.js';
import { startTracing } from './telemetry/tracing.js';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { createEmbeddingProvider } from './rem/embeddings/create.js';
import { RemService } from './rem/service.js';
import { TableStats } from './rem/table-stats.js';
import { ingestFile, type IngestFileInput } from './rem/ingest/ingest-file.js';
import type { AgentContext } from './auth/agent-context.js';

export interface App {
  /** Base URL of the GraphQL endpoint, e.g. http://127.0.0.1:4000/graphql */
  url: string;
  port: number;
  db: Database;
  logger: Logger;
  /** This process's name in the turns it holds (`turns.runner`). */
  processId: string;
  stop(): Promise<void>;
}

/**
 * Opens the database (applying pending migrations), then serves GraphQL over HTTP, SSE and
 * websockets on one port, plus /healthz and /readyz. `stop()` shuts down in order: stop
 * accepting, close websockets (1001), drain HTTP, close the database. `opening` lets a caller start
 * opening the database before it has loaded this module.
 */
export async function startApp(
  config: Config,
  logger = createLogger(config.log.level),
  // A caller may also hand in a database it opened itself (e.g. a test observing queries); the app closes it on stop.
  opening: Promise<Database> = openDatabase(config.database),
  // Tests hand in an in-memory exporter; otherwise OTEL_* settings choose one (none by default).
  spanExporter?: SpanExporter,
): Promise<App> {
  const tracing = startTracing(config.telemetry, spanExporter);
  const db = await opening;
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

  const identify = createIdentify(config.auth);
  let bus: PubSubHandle | undefined;
  // PGlite is one process's own; other processes may share a PostgreSQL database.
  let relay: EventRelay = db.backend === 'postgres' ? logOnlyRelay : localRelay;
  let services: Services;
  try {
    bus = await openPubSub(config.pubsub.redisUrl);
    if (config.pubsub.redisUrl) relay = await openRedisRelay(config.pubsub.redisUrl, logger);
    services = await createServices(config, db, bus.pubsub, relay, logger);
  } catch (error) {
    await relay.close();
    await bus?.close();
    await db.close();
    throw error;
  }
  const pubsubHandle = bus;
  if (bus.kind === 'redis') logger.info('pubsub: Redis (events are shared with every instance using the same REDIS_URL)');
  const graphiql = config.server.graphiql && graphiqlOptions(config.auth);
  const origins = createOriginPolicy(config.security.corsOrigins);
  const yoga = createGraphQLServer({ services, identify, logger, graphiql, origins, limits: config.security.operations });
  const stopMaintenance = startMaintenance({ approvals: services.approvals, supervisor: services.supervisor, logger, intervalMs: config.agents.sweepIntervalMs });
  services.worker.start();
  const dreams = startDreamSchedule(services, config.workflow.dreamIntervalMs, logger);

  const chatApp = config.server.webApp ? createChatApp() : () => false;
  const openai = createOpenAIRoutes({ ...services, identify, origins, logger, maxRequestBytes: config.server.maxRequestBytes });
  const mcp = createMcpRoute({ ...services, identify, origins, logger, maxRequestBytes: config.server.maxRequestBytes });
  const httpServer = createServer((req, res) => {
    if (chatApp(req, res)) return;
    // The OpenAI-compatible and MCP routes refuse a foreign Origin themselves, in their protocol's error shape.
    if (openai(req, res)) return;
    if (mcp(req, res)) return;
    // A page of another site must not act with the caller's identity.
    if (!origins.allows(req.headers.origin, req.headers.host)) {
      return sendJson(res, 403, { errors: [{ message: 'Requests from this origin are not allowed (CORS_ORIGINS)', extensions: { code: 'FORBIDDEN' } }] });
    }
    if (req.url === '/healthz') return sendJson(res, 200, { status: 'ok' });
    if (req.url === '/readyz') return void readiness(db).then(({ ready, ...body }) => sendJson(res, ready ? 200 : 503, body));
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS') return yoga(req, res);
    // A multipart request (GraphQL file upload) may carry a file of up to INGEST_MAX_FILE_BYTES.
    const limit = /^multipart\/form-data/i.test(req.headers['content-type'] ?? '') ? config.server.maxRequestBytes + config.ingest.maxBytes : config.server.maxRequestBytes;
    readBodyWithin(req, limit).then(
      (body) => {
        if (body === 'too-large') {
          // The rest of the body is not read: close the connection rather than drain it.
          res.setHeader('connection', 'close');
          return sendJson(res, 413, {
            errors: [{ message: `Request body exceeds ${limit} bytes (MAX_REQUEST_BYTES${limit > config.server.maxRequestBytes ? ' + INGEST_MAX_FILE_BYTES' : ''})`, extensions: { code: 'PAYLOAD_TOO_LARGE' } }],
          });
        }
        // yoga (whatwg-node) uses a body already read from the request instead of the stream.
        if (body.length > 0) Object.assign(req, { body });
        return yoga(req, res);
      },
      () => req.destroy(),
    );
  });
  const wsServer = new WebSocketServer({
    server: httpServer,
    path: GRAPHQL_PATH,
    maxPayload: config.server.maxRequestBytes,
    // A page of another site must not open a socket with the user's credentials (cookies, local identity).
    verifyClient: ({ req }: { req: IncomingMessage }, done: (ok: boolean, status?: number, message?: string) => void) =>
      origins.allows(req.headers.origin, req.headers.host) ? done(true) : done(false, 403, 'Origin not allowed (CORS_ORIGINS)'),
  });
  const ws = serveGraphQLOverWebSocket(yoga, wsServer, { identify, logger, quotas: new SocketQuotas(config.security.quotas) });

  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(config.server.port, config.server.host, () => resolve());
  });
  const { port } = httpServer.address() as AddressInfo;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}${GRAPHQL_PATH}`;

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      // Closes every websocket with 1001 (going away) so clients know to reconnect elsewhere.
      await ws.dispose();
      httpServer.closeIdleConnections();
      const forced = setTimeout(() => httpServer.closeAllConnections(), config.server.shutdownGraceMs);
      await stopMaintenance();
      clearInterval(dreams);
      await services.worker.stop();
      await services.supervisor.shutdown();
      await services.mcp.close();
      await closed;
      clearTimeout(forced);
      await yoga.dispose();
      await relay.close();
      await pubsubHandle.close();
      await db.close();
      await tracing.shutdown();
    })());

  return { url, port, db, logger, processId: services.supervisor.processId, stop };
}

/** The app's services plus the engine parts only the app itself handles (shutdown, maintenance). */
interface Services extends AppServices {
  supervisor: Supervisor;
  /** Connections to the MCP servers agents take tools from. */
  mcp: McpToolbox;
  worker: JobWorker;
}

async function createServices(config: Config, db: Database, pubsub: RemPubSub, relay: EventRelay, logger: Logger): Promise<Services> {
  const rem = new RemService(
    {
      prisma: db.prisma,
      sql: db.sql,
      embedder: createEmbeddingProvider(config.rem.embedding),
      interruptAfter: db.interruptAfter,
      tableStats: new TableStats(db.prisma, config.rem.analyzeAfterRows, (err, table) => logger.warn({ err, table }, 'ANALYZE after a bulk memory write failed')),
    },
    config.rem,
  );
  const mcp = new McpToolbox(config.mcp.servers, logger);
  const tools = new ToolRegistry([...builtinTools, createSearchTool(rem), createSaveMemoryTool(rem)], (error, tool) => logger.error({ err: error, tool }, 'tool failed'), mcp);
  const models = createModelResolver(config.llm);
  const agents = await AgentRegistry.create({
    prisma: db.prisma,
    pubsub,
    logger,
    toolExists: (ref) => tools.knows(ref),
    agentsDir: config.agents.agentsDir,
    maxYamlBytes: config.security.maxYamlBytes,
  });
  const processId = `${process.pid}-${randomUUID().slice(0, 8)}`;
  const hub = new EventHub({ prisma: db.prisma, flushIntervalMs: config.agents.eventFlushMs, relay, pubsub, logger });
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
    store: new TurnStore(db.prisma, processId),
    lease: new TreeLease(db.prisma, processId),
    settings: config.agents,
  };
  const supervisor = new Supervisor(engine);
  const router = new Router({ agents: engine.agents, logger: engine.logger, runClassifier: (input) => runDetached(engine, input) }, await routingRules(config), { defaultAgent: config.agents.defaultAgent, classifierAgent: config.workflow.classifierAgent });
  const quota = new TurnQuota(db.prisma, config.security.quotas);
  const turns = new TurnService(engine, supervisor, quota, router);
  const approvals = new ApprovalService({ prisma: db.prisma, pubsub, logger, afterDecision: (rootId) => supervisor.afterDecision(rootId), settings: config.agents });
  if (models.defaultModelId === 'demo') {
    logger.warn('No model provider configured: agents answer with the offline demo model (set OPENAI_API_KEY)');
  }
  const queue = new JobQueue(db.prisma, processId);
  const memory = { prisma: db.prisma, embedder: rem.embedder, stats: rem.tableStats };
  const evals = { ...engine, pubsub, queue, turns, quota };
  const handlers: Record<string, JobHandler> = {
    [DREAM_JOB]: dreamHandler({ ...engine, memory, agentName: config.workflow.dreamAgent }),
    [EXPERIMENT_JOB]: experimentHandler(evals),
    [REEMBED_JOB]: reembedHandler({ ...memory, stats: rem.tableStats, queue, batchSize: config.rem.reembedBatchSize }),
  };
  const worker = new JobWorker(queue, pick(handlers, config.workflow.jobs.kinds), config.workflow.jobs, logger);
  queue.onEnqueued = () => worker.wake();
  const files = (ctx: AgentContext, input: IngestFileInput) => ingestFile({ prisma: db.prisma, embedder: rem.embedder }, ctx, input, config.ingest);
  // Last: nothing after this may fail and leave the MCP servers' processes running.
  await mcp.connect();
  return { prisma: db.prisma, sql: db.sql, pubsub, agents, models, turns, quota, approvals, hub, relay, rem, supervisor, mcp, queue, worker, evals, ingestFile: files };
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

/** routing.yaml's rules; a file that is missing or invalid stops start-up with its located problems. */
async function routingRules(config: Config) {
  try {
    return await loadRoutingFile(config.workflow.routingFile);
  } catch (error) {
    const problems = error instanceof ValidationError ? error.issues.map((i) => `${i.path.join('.')}: ${i.message} (line ${i.line ?? '?'}, column ${i.column ?? '?'})`) : [(error as Error).message];
    throw new ConfigError(problems.map((p) => `ROUTING_FILE ${config.workflow.routingFile}: ${p}`));
  }
}

async function readiness(db: Database): Promise<{ ready: boolean; [key: string]: unknown }> {
  try {
    await db.prisma.$queryRaw`SELECT 1`;
  } catch {
    return { ready: false, status: 'database unreachable' };
  }
  const pending = await pendingMigrations(db);
  if (pending.length) return { ready: false, status: 'migrations pending', pending };
  return { ready: true, status: 'ready', backend: db.backend };
}

/** A superuser can switch off the SQL-mode sandbox (SET ROLE, DDL); the README shows a least-privilege role. */
async function warnIfSuperuser(db: Database, logger: Logger): Promise<void> {
  if (db.backend !== 'postgres') return;
  const [role] = await db.prisma.$queryRaw<{ name: string; superuser: boolean }[]>`SELECT current_user AS name, rolsuper AS superuser FROM pg_roles WHERE rolname = current_user`;
  if (role?.superuser) {
    logger.warn({ role: role.name }, 'connected to PostgreSQL as a superuser: use a least-privilege role (README, "Security")');
  }
}
