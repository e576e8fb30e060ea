import { z } from 'zod';
import { bool } from './env-values.js';

export const serverVariables = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000).describe('HTTP and websocket port (`0` picks a free one)'),
  HOST: z.string().min(1).default('127.0.0.1').describe('interface to listen on; header identity is for local use, so the default is loopback'),
  GRAPHIQL: bool.default(true).describe('serve GraphiQL on GET /graphql'),
  WEB_APP: bool.default(true).describe('serve the chat app (`web/dist`) at `/` and `/chat`'),
  MAX_REQUEST_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1_048_576)
    .describe('largest accepted request body (with `Content-Length` or chunked) or websocket message (413 above)'),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(5000).describe('how long shutdown waits for open HTTP requests'),
});

/** The HTTP server: where it listens, what it serves, how it stops. */
export const serverSettings = serverVariables.transform((e) => ({
  port: e.PORT,
  host: e.HOST,
  graphiql: e.GRAPHIQL,
  webApp: e.WEB_APP,
  maxRequestBytes: e.MAX_REQUEST_BYTES,
  shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
}));

export const logSettings = z
  .object({ LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').describe('pino level') })
  .transform((e) => ({ level: e.LOG_LEVEL }));
