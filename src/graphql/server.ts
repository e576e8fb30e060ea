import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import { createYoga, type GraphiQLOptions, type YogaServerInstance } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import { coalesceFrames } from './coalesced-frames.js';
import type { WebSocket, WebSocketServer } from 'ws';
import type { AgentContext } from '../auth/agent-context.js';
import { credentialsExpireAt, type HeaderLookup, type Identify } from '../auth/identify.js';
import { isAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { AppServices, GraphQLContext } from './context.js';
import { createMaskError, toGraphQLError, useErrorCodes } from './errors.js';
import { offlineGraphiQL } from './graphiql.js';
import { browserSafetyPlugins, corsFor } from './browser-safety.js';
import type { OriginPolicy } from '../http/origin-policy.js';
import { operationLimitPlugins } from './operation-limits.js';
import { type SocketQuotas, TOO_MANY_CONNECTIONS } from './socket-quotas.js';
import type { SecuritySettings } from '../config/security.js';
import { schema } from './schema.js';
import { useOperationSpans } from './tracing-plugin.js';

export interface GraphQLServerDeps {
  services: AppServices;
  identify: Identify;
  logger: Logger;
  /** GraphiQL's settings (see graphiql.ts), or false to not serve it. */
  graphiql: GraphiQLOptions | false;
  /** Which browser pages may call (CORS_ORIGINS plus same-origin). */
  origins: OriginPolicy;
  limits: SecuritySettings['operations'];
}

/** Context given to yoga by the websocket transport: the identity established at connection_init. */
interface ServerContext {
  viewer?: AgentContext;
}

export const GRAPHQL_PATH = '/graphql';

/** Longest delay setTimeout keeps (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function createGraphQLServer(deps: GraphQLServerDeps): YogaServerInstance<ServerContext, GraphQLContext> {
  const identify = async (header: HeaderLookup) => {
    try {
      return await deps.identify(header);
    } catch (error) {
      throw isAppError(error) ? toGraphQLError(error) : error;
    }
  };
  return createYoga<ServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    cors: corsFor(deps.origins),
    plugins: [...browserSafetyPlugins(), ...operationLimitPlugins(deps.limits), useErrorCodes(), useOperationSpans()],
    graphiql: deps.graphiql,
    renderGraphiQL: offlineGraphiQL(),
    // isDev would add stack traces to errors whenever NODE_ENV=development: never for clients.
    maskedErrors: { maskError: createMaskError(deps.logger), isDev: false },
    logging: {
      debug: (...args) => deps.logger.debug(args.map(String).join(' ')),
      info: (...args) => deps.logger.info(args.map(String).join(' ')),
      warn: (...args) => deps.logger.warn(args.map(String).join(' ')),
      // Operation errors are logged (once, unmasked) by the error masker when unexpected.
      error: (...args) => deps.logger.debug(args.map(String).join(' ')),
    },
    context: async ({ request, viewer }) => ({
      ...deps.services,
      viewer: viewer ?? (await identify((name) => request.headers.get(name) ?? undefined)),
    }),
  });
}

/**
 * Serves graphql-ws on the websocket server, executing through yoga's envelop so that auth,
 * error masking and plugins are identical over HTTP, SSE and websockets. The connection_init
 * payload carries the same credentials as HTTP headers (e.g. `{ "Authorization": "Bearer …" }`).
 */
export function serveGraphQLOverWebSocket(
  yoga: YogaServerInstance<ServerContext, GraphQLContext>,
  wsServer: WebSocketServer,
  deps: Pick<GraphQLServerDeps, 'identify' | 'logger'> & { quotas: SocketQuotas },
) {
  type Extra = { request: IncomingMessage; socket: WebSocket; viewer?: AgentContext; expiry?: NodeJS.Timeout; counted?: boolean };
  coalesceFrames(wsServer);
  return useServer<Record<string, unknown> | undefined, Extra>(
    {
      // graphql-ws types these args without the rootValue that onSubscribe below puts yoga's enveloped functions in.
      /* eslint-disable @typescript-eslint/no-explicit-any */
      execute: (args: any) => args.rootValue.execute(args),
      subscribe: (args: any) => args.rootValue.subscribe(args),
      /* eslint-enable @typescript-eslint/no-explicit-any */
      onConnect: async (ctx) => {
        const params = Object.fromEntries(Object.entries(ctx.connectionParams ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
        const header: HeaderLookup = (name) => {
          const value = params[name] ?? (params.headers as Record<string, unknown> | undefined)?.[name];
          return typeof value === 'string' ? value : undefined;
        };
        try {
          ctx.extra.viewer = await deps.identify(header);
        } catch (error) {
          deps.logger.info({ reason: (error as Error).message }, 'websocket connection refused');
          return false;
        }
        if (!deps.quotas.admit(ctx.extra.viewer)) {
          ctx.extra.socket.close(TOO_MANY_CONNECTIONS, deps.quotas.connectionRefusal);
          return false;
        }
        ctx.extra.counted = true;
        const expiresAt = credentialsExpireAt(header);
        // A socket lives no longer than the token that opened it (4403, as for a refused one).
        if (expiresAt !== undefined && expiresAt - Date.now() < MAX_TIMER_MS) {
          ctx.extra.expiry = setTimeout(() => ctx.extra.socket.close(4403, 'Token expired'), Math.max(0, expiresAt - Date.now()));
          ctx.extra.expiry.unref();
        }
        return true;
      },
      onClose: (ctx) => {
        clearTimeout(ctx.extra.expiry);
        if (ctx.extra.counted && ctx.extra.viewer) deps.quotas.release(ctx.extra.viewer);
      },
      onSubscribe: async (ctx, _id, payload) => {
        const refusal = deps.quotas.subscriptionRefusal(Object.keys(ctx.subscriptions).length);
        if (refusal) return [refusal];
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          ...ctx,
          viewer: ctx.extra.viewer,
          req: ctx.extra.request,
          socket: ctx.extra.request.socket,
          params: payload,
        });
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          if (error instanceof GraphQLError) return [error];
          throw error;
        }
        const args = {
          schema,
          operationName: payload.operationName,
          document,
          variableValues: payload.variables,
          contextValue: await contextFactory(),
          rootValue: { execute, subscribe },
        };
        const errors = validate(args.schema, args.document);
        if (errors.length) return errors;
        return args;
      },
    },
    wsServer,
  );
}
