import { z } from 'zod';
import { agentSettings } from './agents.js';
import { authSettings } from './auth.js';
import { databaseSettings } from './database.js';
import { inboundSettings } from './inbound.js';
import { ingestSettings } from './ingest.js';
import { llmSettings } from './llm.js';
import { mcpSettings } from './mcp.js';
import { pubsubSettings } from './pubsub.js';
import { remSettings } from './rem.js';
import { logSettings, serverSettings } from './server.js';
import { securitySettings } from './security.js';
import { telemetrySettings } from './telemetry.js';
import { workflowSettings } from './workflow.js';
import { workerSettings } from './workers.js';

/**
 * Every setting remgraph reads, validated once at boot: one model per concern, each reading the
 * environment variables it needs and giving its typed section. docs/configuration.md is printed
 * from these models (`npm run docs:config`, src/config/reference.ts).
 */
export const configSections = {
  server: serverSettings,
  security: securitySettings,
  agents: agentSettings,
  workflow: workflowSettings,
  database: databaseSettings,
  pubsub: pubsubSettings,
  log: logSettings,
  auth: authSettings,
  llm: llmSettings,
  rem: remSettings,
  mcp: mcpSettings,
  telemetry: telemetrySettings,
  ingest: ingestSettings,
  inbound: inboundSettings,
  workers: workerSettings,
};

const configModel = z.preprocess((env) => Object.fromEntries(Object.keys(configSections).map((name) => [name, env])), z.object(configSections));

export type Config = z.output<typeof configModel>;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Settings whose empty value means "none" rather than "unset" (JOB_KINDS= is an API-only instance). */
const EMPTY_MEANS_NONE = new Set(['JOB_KINDS']);

/** Reads and validates settings from an environment (process.env by default). Throws ConfigError. */
export function loadConfig(source: Record<string, string | undefined> = process.env): Config {
  const present = Object.fromEntries(Object.entries(source).filter(([k, v]) => v !== undefined && (v !== '' || EMPTY_MEANS_NONE.has(k))));
  const parsed = configModel.safeParse(present);
  if (parsed.success) return parsed.data;
  // Issues are located in a section; the operator knows the variable (a variable two sections read is named once).
  const problems = parsed.error.issues.map((i) => {
    const where = i.path.slice(1).map(String).join('.');
    return where ? `${where}: ${i.message}` : i.message;
  });
  throw new ConfigError([...new Set(problems)]);
}
