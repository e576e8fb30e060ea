import { z } from 'zod';
import { bool } from './env-values.js';

export const serverVariables = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  GRAPHIQL: bool.default(true),
  /** Serve the reference chat app (built into web/dist) at / and /chat. */
  WEB_APP: bool.default(true),
  MAX_REQUEST_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(5000),
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
  .object({ LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info') })
  .transform((e) => ({ level: e.LOG_LEVEL }));
