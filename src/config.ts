import { z } from 'zod';

/**
 * Every setting remgraph reads, validated once at boot. The README's configuration table documents
 * the same names; keep them in step.
 */
const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
    .optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GRAPHIQL: bool.default(true),
  MAX_REQUEST_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  AUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters for HS256').optional(),
  AUTH_JWKS_URL: z.url().optional(),
  AUTH_JWT_ISSUER: z.string().optional(),
  AUTH_JWT_AUDIENCE: z.string().optional(),
  AUTH_TENANT_CLAIM: z.string().default('tenant_id'),
  AUTH_ADMIN_ROLE: z.string().default('admin'),
  DEFAULT_TENANT: z.string().min(1).default('default'),
  DEFAULT_USER: z.string().min(1).default('local-user'),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(5000),
});

export type Env = z.input<typeof env>;

export interface Config {
  server: { port: number; host: string; graphiql: boolean; maxRequestBytes: number; shutdownGraceMs: number };
  database: { url?: string; dataDir: string; poolSize: number };
  log: { level: z.infer<typeof env>['LOG_LEVEL'] };
  auth:
    | { mode: 'jwt'; secret?: string; jwksUrl?: string; issuer?: string; audience?: string; tenantClaim: string; adminRole: string; defaultTenant: string }
    | { mode: 'headers'; defaultTenant: string; defaultUser: string; adminRole: string };
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates settings from an environment (process.env by default). Throws ConfigError. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = env.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
  if (e.AUTH_JWT_SECRET && e.AUTH_JWKS_URL) {
    throw new ConfigError(['AUTH_JWT_SECRET and AUTH_JWKS_URL: set one of them, not both']);
  }
  const jwt = Boolean(e.AUTH_JWT_SECRET || e.AUTH_JWKS_URL);
  return {
    server: {
      port: e.PORT,
      host: e.HOST,
      graphiql: e.GRAPHIQL,
      maxRequestBytes: e.MAX_REQUEST_BYTES,
      shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    },
    database: { url: e.DATABASE_URL, dataDir: e.DATA_DIR, poolSize: e.DATABASE_POOL_SIZE },
    log: { level: e.LOG_LEVEL },
    auth: jwt
      ? {
          mode: 'jwt',
          secret: e.AUTH_JWT_SECRET,
          jwksUrl: e.AUTH_JWKS_URL,
          issuer: e.AUTH_JWT_ISSUER,
          audience: e.AUTH_JWT_AUDIENCE,
          tenantClaim: e.AUTH_TENANT_CLAIM,
          adminRole: e.AUTH_ADMIN_ROLE,
          defaultTenant: e.DEFAULT_TENANT,
        }
      : { mode: 'headers', defaultTenant: e.DEFAULT_TENANT, defaultUser: e.DEFAULT_USER, adminRole: e.AUTH_ADMIN_ROLE },
  };
}
