import cluster from 'node:cluster';
import type { IncomingMessage, RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { WebSocketServer } from 'ws';
import { readAgentFiles } from './agents/registry.js';
import type { Config } from './config/config.js';
import { openDatabase, type Database } from './db/database.js';
import { readiness } from './db/readiness.js';
import { createGraphQLServer, GRAPHQL_PATH, serveGraphQLOverWebSocket } from './graphql/server.js';
import { graphiqlOptions } from './graphql/graphiql.js';
import { SocketQuotas } from './graphql/socket-quotas.js';
import { createChatApp } from './http/chat-app.js';
import { createOpenAIRoutes } from './http/openai/routes.js';
import { createUIStreamRoutes } from './http/ui-stream/routes.js';
import { createOriginPolicy } from './http/origin-policy.js';
import { createRouter } from './http/router.js';
import { listenEarly, type StartupGate } from './http/startup-gate.js';
import { createLogger, type Logger } from './logger.js';
import { createMcpRoute } from './mcp/server/route.js';
import { createInboundEmailRoute } from './http/inbound-email.js';
import { openServices } from './services.js';
import { startTracing } from './telemetry/tracing.js';

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
 * accepting, close websockets (1001), stop background work, drain HTTP, close the database.
 * `opening` and `listening` let a caller start opening the database and listening (/healthz answers
 * from then on, other requests wait for the app) before it has loaded this module; without
 * `listening` the app listens once it is built.
 */
export async function startApp(
  config: Config,
  logger = createLogger(config.log.level),
  // A caller may also hand in a database it opened itself (e.g. a test observing queries); the app closes it on stop.
  opening: Promise<Database> = openDatabase(config.database, { warmUp: true }),
  // Tests hand in an in-memory exporter; otherwise OTEL_* settings choose one (none by default).
  spanExporter?: SpanExporter,
  listening?: Promise<StartupGate>,
): Promise<App> {
  listening?.catch(() => {}); // awaited once the app is built, unless building it fails first
  try {
    return await serveApp(config, logger, opening, spanExporter, listening);
  } catch (error) {
    const server = await listening?.then(
      ({ server }) => server,
      () => undefined,
    );
    server?.close();
    // Requests held while starting would otherwise wait forever.
    server?.closeAllConnections();
    throw error;
  }
}

async function serveApp(
  config: Config,
  logger: Logger,
  opening: Promise<Database>,
  spanExporter: SpanExporter | undefined,
  listening: Promise<StartupGate> | undefined,
): Promise<App> {
  // The agent files need no database: they are read and checked while it opens.
  const agentFiles = readAgentFiles(config.agents.agentsDir);
  agentFiles.catch(() => {}); // openServices reports a bad file, unless the database failed first
  const [tracing, db] = await Promise.all([startTracing(config.telemetry, spanExporter), opening]);
  const { services, start, close } = await openServices(config, db, logger, agentFiles);
  const { identify } = services;
  const graphiql = config.server.graphiql && graphiqlOptions(config.auth);
  const origins = createOriginPolicy(config.security.corsOrigins);
  const yoga = createGraphQLServer({ services, identify, logger, graphiql, origins, limits: config.security.operations });

  const routeDeps = { ...services, origins, logger, maxRequestBytes: config.server.maxRequestBytes };
  let listener: RequestListener = createRouter({
    routes: [
      ...(config.server.webApp ? [createChatApp()] : []),
      createOpenAIRoutes(routeDeps),
      createUIStreamRoutes(routeDeps),
      createMcpRoute(routeDeps),
      createInboundEmailRoute({ settings: config.inbound, intake: services.intakeEmail, logger }),
    ],
    origins,
    readiness: () => readiness(db),
    graphql: yoga,
    maxRequestBytes: config.server.maxRequestBytes,
    maxUploadBytes: config.ingest.maxBytes,
  });
  let opened: StartupGate;
  try {
    opened = await (listening ?? listenEarly(config.server, origins));
  } catch (error) {
    await close(async () => yoga.dispose());
    await tracing.shutdown();
    throw error;
  }
  const { server: httpServer } = opened;
  const wsServer = new WebSocketServer({
    server: httpServer,
    path: GRAPHQL_PATH,
    maxPayload: config.server.maxRequestBytes,
    // A page of another site must not open a socket with the user's credentials (cookies, local identity).
    verifyClient: ({ req }: { req: IncomingMessage }, done: (ok: boolean, status?: number, message?: string) => void) =>
      origins.allows(req.headers.origin, req.headers.host) ? done(true) : done(false, 403, 'Origin not allowed (CORS_ORIGINS)'),
  });
  if (cluster.isWorker) {
    // Which worker of `serve --workers N` answered, for an operator following a request (and the tests).
    const worker = String(process.pid);
    const route = listener;
    listener = (req, res) => {
      res.setHeader('x-remgraph-worker', worker);
      route(req, res);
    };
    wsServer.on('headers', (headers: string[]) => headers.push(`x-remgraph-worker: ${worker}`));
  }
  const ws = serveGraphQLOverWebSocket(yoga, wsServer, { identify, logger, quotas: new SocketQuotas(config.security.quotas) });

  // `kill -USR2 <pid>` logs what this process holds, for an operator (or bench/soak.ts) looking for a leak.
  const logDiagnostics = () => logger.info({ diagnostics: { ...services.hub.diagnostics(), ...activeResources() } }, 'diagnostics');
  process.on('SIGUSR2', logDiagnostics);

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      process.off('SIGUSR2', logDiagnostics);
      const closed = new Promise<void>((resolve) => httpServer.close(() => resolve()));
      // Closes every websocket with 1001 (going away) so clients know to reconnect elsewhere.
      await ws.dispose();
      httpServer.closeIdleConnections();
      const forced = setTimeout(() => httpServer.closeAllConnections(), config.server.shutdownGraceMs);
      await close(async () => {
        await closed;
        clearTimeout(forced);
        await yoga.dispose();
      });
      await tracing.shutdown();
    })());

  opened.open(listener);
  start();
  const { port } = httpServer.address() as AddressInfo;
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}${GRAPHQL_PATH}`;
  return { url, port, db, logger, processId: services.supervisor.processId, stop };
}

/** Node's active handles and requests by kind (`Timeout`, `TCPSocketWrap`…), e.g. `{ Timeout: 3 }`. */
function activeResources(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of process.getActiveResourcesInfo()) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}
