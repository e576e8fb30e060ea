import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
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
  /** Redis for pubsub between server instances; unset means in-process pubsub (one instance). */
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  GRAPHIQL: bool.default(true),
  /** Serve the reference chat app (built into web/dist) at / and /chat. */
  WEB_APP: bool.default(true),
  MAX_REQUEST_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  AUTH_JWT_SECRET: z.string().min(32, 'must be at least 32 characters for HS256').optional(),
  AUTH_JWKS_URL: z.url().optional(),
  AUTH_JWT_ISSUER: z.string().optional(),
  AUTH_JWT_AUDIENCE: z.string().optional(),
  AUTH_TENANT_CLAIM: z.string().default('tenant_id'),
  AUTH_ADMIN_ROLE: z.string().default('admin'),
  DEFAULT_TENANT: z.string().min(1).default('default'),
  /** User of header-mode requests without X-User-Id; unset, such callers are anonymous (they read shared rows only). */
  DEFAULT_USER: z.string().min(1).optional(),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(5000),
  /** Agent used when a message names none and the session has none. */
  DEFAULT_AGENT: z.string().min(1).default('general'),
  /** Operator's folder of YAML agents, loaded after the database and the built-in agents. */
  AGENTS_DIR: z.string().min(1).optional(),
  /** Most tokens of session history sent with each turn (within CONTEXT_TOKEN_BUDGET). */
  HISTORY_TOKEN_BUDGET: z.coerce.number().int().min(0).default(8000),
  /** Earlier assistant answers longer than this reach agents with the search tool as head + tail around a REM LOOKUP breadcrumb; 0 = never. */
  HISTORY_COMPRESS_CHARS: z.coerce.number().int().min(0).default(400),
  // --- session memory and turn controls (issue 10) ---
  /** How long an ephemeral turn (sendMessage ephemeral: true) and its event log are kept after it ended, so a late subscriber still gets the whole stream; 0 = deleted as soon as its stream ended. */
  EPHEMERAL_TURN_RETENTION_MS: z.coerce.number().int().min(0).default(60_000),
  /** Most tokens a whole model request may use (system prompt, tools, memory, history, message, room for the reply), counted with the model's tokenizer. */
  CONTEXT_TOKEN_BUDGET: z.coerce.number().int().min(256).default(32_000),
  /** Tokens for the injected memory (the user's profile entity and the session's recent moments); 0 = none. */
  MEMORY_TOKEN_BUDGET: z.coerce.number().int().min(0).default(1000),
  // --- end session memory ---
  /** Longest time turn events wait in memory before being written (batching window). */
  EVENT_FLUSH_MS: z.coerce.number().int().min(1).max(5000).default(25),
  /** How long an approval waits before APPROVAL_DEFAULT_DECISION applies; 0 = forever. */
  APPROVAL_TTL_MS: z.coerce.number().int().min(0).default(0),
  /** Decision applied to an expired approval. */
  APPROVAL_DEFAULT_DECISION: z.enum(['reject', 'approve']).default('reject'),
  /** How often expired approvals and orphaned turns are looked for. */
  SWEEP_INTERVAL_MS: z.coerce.number().int().min(50).default(5000),
  /** How often a process marks the turn trees it holds alive; a tree silent for 3 beats (and at least 2 s) is taken over and its running turns interrupted. */
  TURN_HEARTBEAT_MS: z.coerce.number().int().min(50).default(10_000),
  /** Deepest chain of agents asking agents (ask_agent). */
  MAX_AGENT_DEPTH: z.coerce.number().int().min(0).max(10).default(3),
  /** Most tool calls one model response may run (the rest are refused with a tool error). */
  MAX_TOOL_CALLS_PER_RESPONSE: z.coerce.number().int().min(1).max(100).default(8),
  /** Most child turns (ask_agent) one top-level turn may start, at any depth. */
  MAX_CHILD_TURNS: z.coerce.number().int().min(0).max(1000).default(20),
  /** API key for the built-in `openai` provider; without it the default model is the offline `demo`. */
  OPENAI_API_KEY: z.string().optional(),
  /** Base URL of the `openai` provider (any OpenAI-compatible endpoint works). */
  OPENAI_BASE_URL: z.url().default('https://api.openai.com/v1'),
  /** Model used when an agent or request names none: `provider:model`, a bare model (default provider) or `demo`. */
  LLM_DEFAULT_MODEL: z.string().min(1).optional(),
  /** Extra OpenAI-compatible endpoints as JSON: {"ollama": {"baseUrl": "...", "apiKey": null}, "openrouter": {"baseUrl": "...", "apiKeyEnv": "OPENROUTER_API_KEY"}}. */
  LLM_PROVIDERS: z.string().optional(),
  /** Longest wait for a model response to start, and between two streamed chunks. */
  LLM_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
  /** Retries on 429, 5xx and connection failures, only before any output was streamed. */
  LLM_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(3),
  /** First retry delay; it doubles per attempt, with jitter, unless the provider sends retry-after. */
  LLM_RETRY_BASE_MS: z.coerce.number().int().min(0).default(500),
  /** REM embeddings: `hashed-lexical` (offline, deterministic, lexical not semantic) or `openai` (any OpenAI-compatible endpoint). */
  EMBEDDING_PROVIDER: z.enum(['hashed-lexical', 'openai']).default('hashed-lexical'),
  /** Embedding model name stored with every vector; defaults to `hashed-lexical-v1` or `text-embedding-3-small`. */
  EMBEDDING_MODEL: z.string().min(1).optional(),
  /** Vector dimension; defaults to 384 (hashed-lexical) or 1536 (openai). HNSW indexes exist for 384 and 1536. */
  EMBEDDING_DIMENSION: z.coerce.number().int().min(8).max(4096).optional(),
  /** Base URL of the embeddings endpoint for `openai`; defaults to OPENAI_BASE_URL (key: EMBEDDING_API_KEY, or OPENAI_API_KEY when on OPENAI_BASE_URL's host). */
  EMBEDDING_BASE_URL: z.url().optional(),
  EMBEDDING_API_KEY: z.string().optional(),
  /** SEARCH hits below this cosine similarity are dropped (per query: MIN_SIMILARITY x). */
  REM_SEARCH_MIN_SIMILARITY: z.coerce.number().min(0).max(1).default(0.3),
  /** FUZZY ranks at most this many keys at or above its threshold: a bound on the work of one query. */
  REM_FUZZY_CANDIDATES: z.coerce.number().int().min(1).max(100_000).default(200),
  /**
   * ANALYZE a memory table once this many rows (or 10% of its rows, if more) were written to it by
   * this process (ingest, upserts, save_memory, reembed) since its last ANALYZE: PGlite has no
   * autovacuum, and LOOKUP/TRAVERSE keep their plans until their tables are analyzed. 0 turns it off.
   */
  REM_ANALYZE_AFTER_ROWS: z.coerce.number().int().min(0).default(1000),
  /**
   * Rows per batch of a re-embed (the reembed job, `remgraph reembed`): each batch is a few short
   * statements and one embeddings request, and other requests run between batches.
   */
  REM_REEMBED_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(256),
  /**
   * SQL mode: longest run of one query. PostgreSQL cancels it (statement_timeout); PGlite, which
   * cannot cancel a statement, has its worker thread stopped and the database reopened.
   */
  REM_SQL_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(2000),
  /** SQL mode: most rows returned (`truncated: true` beyond). */
  REM_SQL_ROW_CAP: z.coerce.number().int().min(1).max(100_000).default(500),
  /** SQL mode: most bytes of JSON rows returned (`truncated: true` beyond). */
  REM_SQL_MAX_BYTES: z.coerce.number().int().min(1024).max(64 * 1024 * 1024).default(1024 * 1024),
  /** SQL mode: queries whose planner cost estimate exceeds this are refused before they run. */
  REM_SQL_MAX_COST: z.coerce.number().positive().default(5_000_000),
  /** SQL mode: rows all generate_series calls of one query may produce together (integer constants only). */
  REM_SQL_MAX_SERIES_ROWS: z.coerce.number().int().min(1).max(1_000_000_000).default(10_000),

  // --- Security: what a caller may send and how much (README "Security") ---
  /** Browser origins allowed to call the API from another site (comma-separated, e.g. https://app.example.com); unset = none, same-origin only. */
  CORS_ORIGINS: z.string().optional(),
  /** Lets header identity (X-User-Id, X-Roles) serve on a non-loopback HOST; without it the server refuses to start there without JWT auth. */
  ALLOW_HEADER_AUTH: bool.default(false),
  /** Accept tokens without the AUTH_TENANT_CLAIM claim (their tenant is DEFAULT_TENANT); otherwise they are refused. */
  AUTH_TENANT_OPTIONAL: bool.default(false),
  /** Deepest selection set of an operation (fragments expanded). */
  MAX_QUERY_DEPTH: z.coerce.number().int().min(1).max(100).default(12),
  /** Highest cost of an operation: 1 per field, and a list field multiplies what it selects by 10 (graphEdges: by its `first`). */
  MAX_QUERY_COST: z.coerce.number().int().min(1).default(50_000),
  /** Most aliases in one operation. */
  MAX_QUERY_ALIASES: z.coerce.number().int().min(0).default(20),
  /** Most tokens (names, punctuation, values) in one operation document. */
  MAX_QUERY_TOKENS: z.coerce.number().int().min(100).default(3000),
  /** Most directives in one operation. */
  MAX_QUERY_DIRECTIVES: z.coerce.number().int().min(0).default(30),
  /** Most items of a list argument (nodes(ids:), remQuery LOOKUP keys, tags, ...). */
  MAX_LIST_ARGUMENT: z.coerce.number().int().min(1).max(10_000).default(100),
  /** Most times one mutation field may run in one request (aliased sendMessage, ...). */
  MAX_SAME_MUTATION: z.coerce.number().int().min(1).max(1000).default(5),
  /** Largest YAML document accepted (validateAgent, registerAgent, AGENTS_DIR files). */
  MAX_YAML_BYTES: z.coerce.number().int().min(1024).default(65_536),
  /** Turns one user may have running at once (across instances). */
  MAX_CONCURRENT_TURNS_PER_USER: z.coerce.number().int().min(1).default(4),
  /** Turns one user may start per minute (across instances). */
  MAX_TURNS_PER_MINUTE: z.coerce.number().int().min(1).default(30),
  /** Websocket connections one user may hold open on one instance. */
  MAX_WS_CONNECTIONS_PER_USER: z.coerce.number().int().min(1).default(10),
  /** Subscriptions one websocket connection may run at once. */
  MAX_SUBSCRIPTIONS_PER_CONNECTION: z.coerce.number().int().min(1).default(20),

  // --- protocols ---
  /** MCP servers whose tools agents may use (`server:` on a tool reference), as JSON: {"name": {"command": …} | {"url": …}}. */
  MCP_SERVERS: z.string().optional(),
  /** A YAML file declaring MCP servers under `servers:` (same shape as MCP_SERVERS); `mcp.yaml` in the working directory is read when present. */
  MCP_CONFIG: z.string().min(1).optional(),
  /** Longest wait for an MCP tool call (a server may set its own `timeout_ms`). */
  MCP_TOOL_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  /** OpenTelemetry (standard variables): tracing is on when an exporter is chosen or an OTLP endpoint is set. */
  OTEL_SDK_DISABLED: bool.default(false),
  OTEL_TRACES_EXPORTER: z.enum(['otlp', 'console', 'none']).optional(),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().min(1).default('remgraph'),
  /** Largest file ingestFile / ingest_file accept (multipart requests may be this much larger than MAX_REQUEST_BYTES). */
  INGEST_MAX_FILE_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024),
  /** Longest chunk of an ingested file, in characters. */
  INGEST_CHUNK_CHARS: z.coerce.number().int().min(200).max(100_000).default(2000),
  /** Characters consecutive chunks of a section share. */
  INGEST_CHUNK_OVERLAP_CHARS: z.coerce.number().int().min(0).max(10_000).default(200),

  // --- workflow: routing, dreaming, experiments ---
  /** routing.yaml: ordered rules choosing an agent per message; validated at start-up. */
  ROUTING_FILE: z.string().min(1).optional(),
  /** Agent (structured output {agent, reason}) that picks the active agent of sessions with routing on. */
  ROUTING_CLASSIFIER_AGENT: z.string().min(1).default('router'),
  /** Kinds of background job this process runs (comma-separated: dream, experiment, reembed); empty = none (an API-only instance). */
  JOB_KINDS: z
    .string()
    .default('dream,experiment,reembed')
    .transform((v) => v.split(',').map((k) => k.trim()).filter(Boolean))
    .pipe(z.array(z.enum(['dream', 'experiment', 'reembed']))),
  /** How often each process looks for queued jobs (dreams, experiments, re-embeds) besides being told of new ones. */
  JOB_POLL_MS: z.coerce.number().int().min(10).default(1000),
  /** A running job's lease; its process renews it, and a job whose lease ran out is taken over. */
  JOB_LEASE_MS: z.coerce.number().int().min(100).default(30_000),
  /** Jobs one process runs at once. */
  JOB_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
  /** Attempts before a failing job is FAILED for good (retried with exponential backoff from 1 s). */
  JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
  /** How often every user's new conversation is dreamed over (consolidated into memory); 0 = only on demand. */
  DREAM_INTERVAL_MS: z.coerce.number().int().min(0).default(0),
  /** Structured agent that turns a conversation into moments, entities and edges. */
  DREAM_AGENT: z.string().min(1).default('dreaming'),
});

const llmProviders = z.record(
  z.string(),
  z.strictObject({
    baseUrl: z.url(),
    /** The key itself; null or absent for keyless endpoints such as Ollama or vLLM. */
    apiKey: z.string().min(1).nullable().optional(),
    /** Name of the environment variable holding the key (kept out of the JSON). */
    apiKeyEnv: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
  }),
);

/** One OpenAI-compatible endpoint. `apiKeyEnv` is set when a key is required (null `apiKey` = not configured). */
export interface LlmProvider {
  baseUrl: string;
  apiKey: string | null;
  apiKeyEnv?: string;
}


/** An MCP server agents take tools from: a command speaking stdio, or a streamable HTTP endpoint. */
export type McpServerConfig =
  | { transport: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string; timeoutMs: number }
  | { transport: 'http'; url: string; headers: Record<string, string>; timeoutMs: number };

export interface Config {
  server: { port: number; host: string; graphiql: boolean; webApp: boolean; maxRequestBytes: number; shutdownGraceMs: number };
  security: SecuritySettings;
  agents: {
    defaultAgent: string;
    agentsDir?: string;
    historyTokenBudget: number;
    historyCompressChars: number;
    ephemeralRetentionMs: number;
    contextTokenBudget: number;
    memoryTokenBudget: number;
    eventFlushMs: number;
    approvalTtlMs: number;
    approvalDefault: 'reject' | 'approve';
    sweepIntervalMs: number;
    heartbeatMs: number;
    maxDepth: number;
    maxToolCallsPerResponse: number;
    maxChildTurns: number;
  };
  workflow: {
    routingFile?: string;
    classifierAgent: string;
    jobs: { kinds: string[]; pollMs: number; leaseMs: number; concurrency: number; maxAttempts: number };
    dreamIntervalMs: number;
    dreamAgent: string;
  };
  database: { url?: string; dataDir: string; poolSize: number };
  pubsub: { redisUrl?: string };
  log: { level: z.infer<typeof env>['LOG_LEVEL'] };
  auth:
    | { mode: 'jwt'; secret?: string; jwksUrl?: string; issuer?: string; audience?: string; tenantClaim: string; tenantOptional: boolean; adminRole: string; defaultTenant: string }
    | { mode: 'headers'; defaultTenant: string; defaultUser?: string; adminRole: string };
  llm: { defaultModel: string; timeoutMs: number; maxRetries: number; retryBaseMs: number; providers: Record<string, LlmProvider> };
  rem: {
    embedding: { provider: 'hashed-lexical' | 'openai'; model: string; dimension: number; baseUrl: string; apiKey: string | null };
    searchMinSimilarity: number;
    fuzzyCandidates: number;
    analyzeAfterRows: number;
    reembedBatchSize: number;
    sql: { statementTimeoutMs: number; rowCap: number; maxBytes: number; maxCost: number; maxSeriesRows: number };
    parse: { maxKeys: number };
  };
  mcp: { servers: Record<string, McpServerConfig> };
  /** Where spans go: nowhere (the default), an OTLP/HTTP collector, or the console. */
  telemetry: { exporter: 'otlp' | 'console' | null; serviceName: string };
  ingest: { maxBytes: number; maxChars: number; overlapChars: number };
}

/** Limits on what one caller may send and run (README "Security"). */
export interface SecuritySettings {
  corsOrigins: string[];
  operations: { maxDepth: number; maxCost: number; maxAliases: number; maxTokens: number; maxDirectives: number; maxListArgument: number; maxSameMutation: number };
  maxYamlBytes: number;
  quotas: { concurrentTurnsPerUser: number; turnsPerMinute: number; wsConnectionsPerUser: number; subscriptionsPerConnection: number };
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
  const problems = securityProblems(e, jwt);
  if (problems.length) throw new ConfigError(problems);
  const providers = llmProvidersFrom(e.LLM_PROVIDERS, present);
  return {
    server: {
      port: e.PORT,
      host: e.HOST,
      graphiql: e.GRAPHIQL,
      webApp: e.WEB_APP,
      maxRequestBytes: e.MAX_REQUEST_BYTES,
      shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    },
    security: {
      corsOrigins: originsFrom(e.CORS_ORIGINS),
      operations: {
        maxDepth: e.MAX_QUERY_DEPTH,
        maxCost: e.MAX_QUERY_COST,
        maxAliases: e.MAX_QUERY_ALIASES,
        maxTokens: e.MAX_QUERY_TOKENS,
        maxDirectives: e.MAX_QUERY_DIRECTIVES,
        maxListArgument: e.MAX_LIST_ARGUMENT,
        maxSameMutation: e.MAX_SAME_MUTATION,
      },
      maxYamlBytes: e.MAX_YAML_BYTES,
      quotas: {
        concurrentTurnsPerUser: e.MAX_CONCURRENT_TURNS_PER_USER,
        turnsPerMinute: e.MAX_TURNS_PER_MINUTE,
        wsConnectionsPerUser: e.MAX_WS_CONNECTIONS_PER_USER,
        subscriptionsPerConnection: e.MAX_SUBSCRIPTIONS_PER_CONNECTION,
      },
    },
    agents: {
      defaultAgent: e.DEFAULT_AGENT,
      agentsDir: e.AGENTS_DIR,
      historyTokenBudget: e.HISTORY_TOKEN_BUDGET,
      historyCompressChars: e.HISTORY_COMPRESS_CHARS,
      ephemeralRetentionMs: e.EPHEMERAL_TURN_RETENTION_MS,
      contextTokenBudget: e.CONTEXT_TOKEN_BUDGET,
      memoryTokenBudget: e.MEMORY_TOKEN_BUDGET,
      eventFlushMs: e.EVENT_FLUSH_MS,
      approvalTtlMs: e.APPROVAL_TTL_MS,
      approvalDefault: e.APPROVAL_DEFAULT_DECISION,
      sweepIntervalMs: e.SWEEP_INTERVAL_MS,
      heartbeatMs: e.TURN_HEARTBEAT_MS,
      maxDepth: e.MAX_AGENT_DEPTH,
      maxToolCallsPerResponse: e.MAX_TOOL_CALLS_PER_RESPONSE,
      maxChildTurns: e.MAX_CHILD_TURNS,
    },
    workflow: {
      routingFile: e.ROUTING_FILE,
      classifierAgent: e.ROUTING_CLASSIFIER_AGENT,
      jobs: { kinds: e.JOB_KINDS, pollMs: e.JOB_POLL_MS, leaseMs: e.JOB_LEASE_MS, concurrency: e.JOB_CONCURRENCY, maxAttempts: e.JOB_MAX_ATTEMPTS },
      dreamIntervalMs: e.DREAM_INTERVAL_MS,
      dreamAgent: e.DREAM_AGENT,
    },
    database: { url: e.DATABASE_URL, dataDir: e.DATA_DIR, poolSize: e.DATABASE_POOL_SIZE },
    pubsub: { redisUrl: e.REDIS_URL },
    log: { level: e.LOG_LEVEL },
    auth: jwt
      ? {
          mode: 'jwt',
          secret: e.AUTH_JWT_SECRET,
          jwksUrl: e.AUTH_JWKS_URL,
          issuer: e.AUTH_JWT_ISSUER,
          audience: e.AUTH_JWT_AUDIENCE,
          tenantClaim: e.AUTH_TENANT_CLAIM,
          tenantOptional: e.AUTH_TENANT_OPTIONAL,
          adminRole: e.AUTH_ADMIN_ROLE,
          defaultTenant: e.DEFAULT_TENANT,
        }
      : { mode: 'headers', defaultTenant: e.DEFAULT_TENANT, defaultUser: e.DEFAULT_USER, adminRole: e.AUTH_ADMIN_ROLE },
    llm: {
      defaultModel: e.LLM_DEFAULT_MODEL ?? (e.OPENAI_API_KEY ? 'openai:gpt-4.1-mini' : 'demo'),
      timeoutMs: e.LLM_TIMEOUT_MS,
      maxRetries: e.LLM_MAX_RETRIES,
      retryBaseMs: e.LLM_RETRY_BASE_MS,
      providers: {
        openai: { baseUrl: e.OPENAI_BASE_URL, apiKey: e.OPENAI_API_KEY ?? null, apiKeyEnv: 'OPENAI_API_KEY' },
        ...providers,
      },
    },
    rem: {
      embedding: {
        provider: e.EMBEDDING_PROVIDER,
        model: e.EMBEDDING_MODEL ?? (e.EMBEDDING_PROVIDER === 'openai' ? 'text-embedding-3-small' : 'hashed-lexical-v1'),
        dimension: e.EMBEDDING_DIMENSION ?? (e.EMBEDDING_PROVIDER === 'openai' ? 1536 : 384),
        baseUrl: e.EMBEDDING_BASE_URL ?? e.OPENAI_BASE_URL,
        // OPENAI_API_KEY goes only to OPENAI_BASE_URL's host; another embeddings host needs EMBEDDING_API_KEY.
        apiKey: e.EMBEDDING_API_KEY ?? (sameOrigin(e.EMBEDDING_BASE_URL ?? e.OPENAI_BASE_URL, e.OPENAI_BASE_URL) ? (e.OPENAI_API_KEY ?? null) : null),
      },
      searchMinSimilarity: e.REM_SEARCH_MIN_SIMILARITY,
      fuzzyCandidates: e.REM_FUZZY_CANDIDATES,
      analyzeAfterRows: e.REM_ANALYZE_AFTER_ROWS,
      reembedBatchSize: e.REM_REEMBED_BATCH_SIZE,
      sql: {
        statementTimeoutMs: e.REM_SQL_STATEMENT_TIMEOUT_MS,
        rowCap: e.REM_SQL_ROW_CAP,
        maxBytes: e.REM_SQL_MAX_BYTES,
        maxCost: e.REM_SQL_MAX_COST,
        maxSeriesRows: e.REM_SQL_MAX_SERIES_ROWS,
      },
      parse: { maxKeys: e.MAX_LIST_ARGUMENT },
    },
    mcp: { servers: mcpServersFrom(e, present) },
    telemetry: { exporter: tracesExporter(e), serviceName: e.OTEL_SERVICE_NAME },
    ingest: { maxBytes: e.INGEST_MAX_FILE_BYTES, maxChars: e.INGEST_CHUNK_CHARS, overlapChars: Math.min(e.INGEST_CHUNK_OVERLAP_CHARS, Math.floor(e.INGEST_CHUNK_CHARS / 2)) },
  };
}

type Env = z.infer<typeof env>;

/** Settings that would leave the server open to anyone who can reach it. */
function securityProblems(e: Env, jwt: boolean): string[] {
  const problems: string[] = [];
  if (!jwt && !isLoopback(e.HOST) && !e.ALLOW_HEADER_AUTH) {
    problems.push(
      `HOST: ${e.HOST} is reachable from other machines, and without JWT auth anyone there could claim any user (X-User-Id, X-Roles): set AUTH_JWT_SECRET or AUTH_JWKS_URL, or ALLOW_HEADER_AUTH=true behind a proxy that sets those headers`,
    );
  }
  if (e.AUTH_JWKS_URL) {
    const url = new URL(e.AUTH_JWKS_URL);
    if (url.protocol !== 'https:' && !isLoopback(url.hostname)) problems.push('AUTH_JWKS_URL: must be https:// (plain http only on a loopback host)');
    if (!e.AUTH_JWT_ISSUER || !e.AUTH_JWT_AUDIENCE) problems.push('AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE: required with AUTH_JWKS_URL (a key set signs tokens for many services)');
  }
  return problems;
}

/** Same scheme, host and port: a key for one must not travel to the other. */
function sameOrigin(a: string, b: string): boolean {
  return new URL(a).origin === new URL(b).origin;
}

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** CORS_ORIGINS as exact origins (scheme://host[:port]), the form browsers send in `Origin`. */
function originsFrom(list: string | undefined): string[] {
  if (!list) return [];
  return list.split(',').map((raw) => {
    const value = raw.trim();
    let origin: string;
    try {
      origin = new URL(value).origin;
    } catch {
      throw new ConfigError([`CORS_ORIGINS: "${value}" is not an origin such as https://app.example.com`]);
    }
    if (origin === 'null' || origin !== value.replace(/\/$/, '')) {
      throw new ConfigError([`CORS_ORIGINS: "${value}" is not an origin such as https://app.example.com (no path, no wildcard)`]);
    }
    return origin;
  });
}

/** Parses LLM_PROVIDERS; a provider's key comes from `apiKey` or from the variable named by `apiKeyEnv`. */
function llmProvidersFrom(json: string | undefined, source: Record<string, string | undefined>): Record<string, LlmProvider> {
  if (json === undefined) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new ConfigError([`LLM_PROVIDERS: not valid JSON (${(error as Error).message})`]);
  }
  const parsed = llmProviders.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `LLM_PROVIDERS.${i.path.map(String).join('.')}: ${i.message}`));
  }
  return Object.fromEntries(
    Object.entries(parsed.data).map(([name, p]) => {
      if (name === 'openai' || name === 'demo') {
        throw new ConfigError([`LLM_PROVIDERS.${name}: built in; configure openai with OPENAI_API_KEY / OPENAI_BASE_URL`]);
      }
      if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
        throw new ConfigError([`LLM_PROVIDERS.${name}: provider names are lower-case letters, digits, - and _`]);
      }
      if (p.apiKey && p.apiKeyEnv) throw new ConfigError([`LLM_PROVIDERS.${name}: set apiKey or apiKeyEnv, not both`]);
      const provider: LlmProvider = p.apiKeyEnv
        ? { baseUrl: p.baseUrl, apiKey: source[p.apiKeyEnv] ?? null, apiKeyEnv: p.apiKeyEnv }
        : { baseUrl: p.baseUrl, apiKey: p.apiKey ?? null };
      return [name, provider];
    }),
  );
}

// --- protocols: MCP servers ---

const mcpServer = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: z.record(z.string(), z.string()).default({}),
    cwd: z.string().min(1).optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).default({}),
    timeout_ms: z.number().int().min(1).optional(),
  })
  .refine((s) => Boolean(s.command) !== Boolean(s.url), 'give either command (stdio) or url (streamable HTTP)');
const mcpServers = z.record(z.string(), mcpServer);

/**
 * MCP servers from MCP_SERVERS (JSON) and the MCP_CONFIG file (YAML, `servers:`; `mcp.yaml` when
 * present), the variable winning on a name in both. `${NAME}` in env and header values is replaced by
 * that environment variable, so secrets stay out of the file.
 */
function mcpServersFrom(e: z.infer<typeof env>, source: Record<string, string | undefined>): Record<string, McpServerConfig> {
  const file = e.MCP_CONFIG ?? (existsSync('mcp.yaml') ? 'mcp.yaml' : undefined);
  let fromFile: unknown = {};
  if (file) {
    try {
      fromFile = (parseYaml(readFileSync(file, 'utf8')) as { servers?: unknown } | null)?.servers ?? {};
    } catch (error) {
      throw new ConfigError([`MCP_CONFIG: cannot read ${file} (${(error as Error).message})`]);
    }
  }
  let fromEnv: unknown = {};
  if (e.MCP_SERVERS) {
    try {
      fromEnv = JSON.parse(e.MCP_SERVERS);
    } catch (error) {
      throw new ConfigError([`MCP_SERVERS: not valid JSON (${(error as Error).message})`]);
    }
  }
  const servers: Record<string, McpServerConfig> = {};
  for (const [label, raw] of [[file ?? 'MCP_CONFIG', fromFile], ['MCP_SERVERS', fromEnv]] as const) {
    const parsed = mcpServers.safeParse(raw);
    if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `${label}: servers.${i.path.map(String).join('.')}: ${i.message}`));
    for (const [name, s] of Object.entries(parsed.data)) {
      if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) throw new ConfigError([`${label}: servers.${name}: server names are lower-case letters, digits, - and _`]);
      const expand = (values: Record<string, string>, where: string) =>
        Object.fromEntries(
          Object.entries(values).map(([key, value]) => [
            key,
            value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, variable: string) => {
              const found = source[variable];
              if (found === undefined) throw new ConfigError([`${label}: servers.${name}.${where}.${key}: \${${variable}} is not set`]);
              return found;
            }),
          ]),
        );
      const timeoutMs = s.timeout_ms ?? e.MCP_TOOL_TIMEOUT_MS;
      servers[name] = s.command
        ? { transport: 'stdio', command: s.command, args: s.args, env: expand(s.env, 'env'), cwd: s.cwd, timeoutMs }
        : { transport: 'http', url: s.url!, headers: expand(s.headers, 'headers'), timeoutMs };
    }
  }
  return servers;
}

// --- protocols: OpenTelemetry ---

function tracesExporter(e: z.infer<typeof env>): 'otlp' | 'console' | null {
  if (e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER === 'none') return null;
  if (e.OTEL_TRACES_EXPORTER) return e.OTEL_TRACES_EXPORTER;
  return e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : null;
}
