import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import { createYoga, type GraphiQLOptions, type YogaServerInstance } from 'graphql-yoga';
import { useServer } from 'graphql-ws/use/ws';
import type { WebSocketServer } from 'ws';
import type { AgentContext } from '../auth/agent-context.js';
import type { HeaderLookup, Identify } from '../auth/identify.js';
import { isAppError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { AppServices, GraphQLContext } from './context.js';
import { createMaskError, toGraphQLError } from './errors.js';
import { offlineGraphiQL } from './graphiql.js';
import { schema } from './schema.js';
import { useOperationSpans } from './tracing-plugin.js';

export interface GraphQLServerDeps {
  services: AppServices;
  identify: Identify;
  logger: Logger;
  /** GraphiQL's settings (see graphiql.ts), or false to not serve it. */
  graphiql: GraphiQLOptions | false;
}

/** Context given to yoga by the websocket transport: the identity established at connection_init. */
interface ServerContext {
  viewer?: AgentContext;
}

export const GRAPHQL_PATH = '/graphql';

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
    graphiql: deps.graphiql,
    renderGraphiQL: offlineGraphiQL(),
    maskedErrors: { maskError: createMaskError(deps.logger) },
    plugins: [useOperationSpans()],
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
  deps: Pick<GraphQLServerDeps, 'identify' | 'logger'>,
) {
  type Extra = { request: IncomingMessage; viewer?: AgentContext };
  return useServer<Record<string, unknown> | undefined, Extra>(
    {
      execute: (args: any) => args.rootValue.execute(args),
      subscribe: (args: any) => args.rootValue.subscribe(args),
      onConnect: async (ctx) => {
        const params = Object.fromEntries(
          Object.entries(ctx.connectionParams ?? {}).map(([k, v]) => [k.toLowerCase(), v]),
        );
        const header: HeaderLookup = (name) => {
          const value = params[name] ?? (params.headers as Record<string, unknown> | undefined)?.[name];
          return typeof value === 'string' ? value : undefined;
        };
        try {
          ctx.extra.viewer = await deps.identify(header);
          return true;
        } catch (error) {
          deps.logger.info({ reason: (error as Error).message }, 'websocket connection refused');
          return false;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
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
