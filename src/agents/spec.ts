import { createHash } from 'node:crypto';
import { isMap, isScalar, isSeq } from 'yaml';
import type { Document } from 'yaml';
import { z } from 'zod';
import type { FieldIssue } from '../errors.js';
import { propertiesSchemaIssues } from './properties-schema.js';
import { failLocated, friendlyMessage, locatedZodIssues, parseLocated, type Locate, type Path } from './yaml-located.js';

export type AgentKind = 'agent' | 'evaluator';
/** Who talks to an agent: people (chat pickers list it) or remgraph itself (router, dreaming, evaluators). */
export type AgentAudience = 'chat' | 'internal';

/** An agent's audience when its YAML does not say: evaluators are internal, other agents chat. */
export const defaultAudience = (kind: AgentKind): AgentAudience => (kind === 'evaluator' ? 'internal' : 'chat');

/** One JSON Schema object, as written under an agent's `properties`. */
export type JsonSchema = { [keyword: string]: unknown };

export interface ToolRef {
  name: string;
  /** Tool server alias; absent means the local tools. */
  server?: string;
  /** Agent-specific note appended to the tool's own description (rendered under `## Tool Notes`). */
  description?: string;
  /** The runner must get a human decision before running this tool. */
  requiresApproval: boolean;
}

interface AgentLimits {
  requestLimit?: number;
  totalTokensLimit?: number;
}

/** An agent definition, the same whichever YAML form (flat or legacy `json_schema_extra`) it came from. */
export interface AgentSpec {
  name: string;
  kind: AgentKind;
  audience: AgentAudience;
  /** Informational only; registry versions are numbered separately. */
  version?: string;
  /** The system prompt. */
  description: string;
  /** Thinking aides (conversational) or the output schema (structured), in the order written. */
  properties: Record<string, JsonSchema>;
  required: string[];
  tools: ToolRef[];
  model?: string;
  temperature?: number;
  maxTokens?: number;
  maxIterations: number;
  limits: AgentLimits;
  structuredOutput: boolean;
}

const AGENT_NAME = /^[a-z][a-z0-9_-]{0,63}$/;
const TOOL_NAME = /^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$/;
const VERSION = /^v?\d+(?:\.\d+){0,2}(?:[-+][0-9A-Za-z.+-]+)?$/;
const DEFAULT_MAX_ITERATIONS = 10;

const AGENT_NAME_RULE = 'must be lower-case letters, digits, "-" or "_", start with a letter, and be at most 64 long';
const TOOL_NAME_RULE = 'must be letters, digits, "-" or "_", start with a letter or "_", and be at most 64 long';
const TOOL_SHAPE_RULE = 'must be a tool name or a mapping with name, server?, description?, requires_approval?';

const toolFields = {
  name: z.string().regex(TOOL_NAME, TOOL_NAME_RULE),
  server: z.string().trim().min(1).nullish(),
  description: z.string().nullish(),
  requires_approval: z.boolean().default(false),
};
const limitsFields = {
  request_limit: z.int().min(1).optional(),
  total_tokens_limit: z.int().min(1).optional(),
};
// Legacy (REM) documents may list MCP resources; p8 turns the named ones into tools and drops the rest.
const resourceFields = {
  name: z.string().optional(),
  description: z.string().nullish(),
  uri: z.string().optional(),
  uri_pattern: z.string().optional(),
  mcp_server: z.string().nullish(),
};

const bareNameAsTool = (value: unknown) => (typeof value === 'string' ? { name: value } : value);
const toolShapeError = (issue: { code?: string }) => (issue.code === 'invalid_type' ? TOOL_SHAPE_RULE : undefined);

const flatTool = z.preprocess(bareNameAsTool, z.strictObject(toolFields, { error: toolShapeError }));
const legacyTool = z.preprocess(
  bareNameAsTool,
  z
    .strictObject({ ...toolFields, mcp_server: z.string().trim().min(1).nullish() }, { error: toolShapeError })
    .refine((tool) => !(tool.server && tool.mcp_server), {
      message: 'give server or mcp_server, not both',
      path: ['mcp_server'],
    }),
);

const configFields = {
  name: z.string().regex(AGENT_NAME, AGENT_NAME_RULE),
  kind: z.enum(['agent', 'evaluator']).default('agent'),
  audience: z.enum(['chat', 'internal']).optional(),
  version: z.string().regex(VERSION, 'must look like a version, e.g. "1.0.0"').optional(),
  model: z.string().trim().min(1).optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.int().min(1).optional(),
  max_iterations: z.int().min(1).max(50).default(DEFAULT_MAX_ITERATIONS),
  limits: z.strictObject(limitsFields).default({}),
  structured_output: z.boolean().default(false),
};

const documentFields = {
  type: z.literal('object').optional(),
  description: z.string().trim().min(1),
  properties: z.record(z.string(), z.record(z.string(), z.unknown(), { error: 'must be a JSON schema (a mapping of keywords)' })).default({}),
  required: z.array(z.string()).default([]),
};

const flatAgent = z.strictObject({ ...documentFields, ...configFields, tools: z.array(flatTool).default([]) });

const legacyExtraFields = {
  ...configFields,
  tools: z.array(legacyTool).default([]),
  resources: z.array(z.strictObject(resourceFields)).default([]),
};
const legacyAgent = z.strictObject({ ...documentFields, json_schema_extra: z.strictObject(legacyExtraFields) });

type Form = 'flat' | 'legacy';
type RawTool = { name: string; server?: string | null; description?: string | null; requires_approval: boolean };
type RawAgent = Omit<z.output<typeof flatAgent>, 'tools'> & { tools: RawTool[] };

const knownKeys = {
  flat: Object.keys(flatAgent.shape),
  legacy: Object.keys(legacyAgent.shape),
  extra: Object.keys(legacyExtraFields),
  tool: Object.keys(toolFields),
  legacyTool: [...Object.keys(toolFields), 'mcp_server'],
  limits: Object.keys(limitsFields),
  resource: Object.keys(resourceFields),
};

/**
 * Parses and validates one YAML agent, in the flat form (config at top level) or the legacy form
 * (config under `json_schema_extra`). Throws ValidationError whose issues carry the field path and
 * the 1-based line/column of the offending YAML node.
 */
export function parseAgentYaml(source: string): AgentSpec {
  const { doc, locate } = parseLocated(source, 'agent YAML', 'an agent is one YAML document; remove the extra "---" separator');
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === null || root.value === ''))) {
    fail([{ path: [], message: 'the document is empty; an agent needs at least name and description' }]);
  }
  if (!isMap(root)) {
    const got = isSeq(root) ? 'a list' : 'a single value';
    const message = `the document must be a mapping of fields (name, description, ...), not ${got}`;
    fail([{ path: [], message, ...locate([]) }]);
  }

  let data: Record<string, unknown>;
  try {
    data = doc.toJS({ maxAliasCount: 100 }) as Record<string, unknown>;
  } catch (error) {
    fail([{ path: [], message: error instanceof Error ? error.message : String(error) }]);
  }

  const form: Form = 'json_schema_extra' in data ? 'legacy' : 'flat';
  const configPath: Path = form === 'legacy' ? ['json_schema_extra'] : [];
  keepVersionText(doc, data, configPath);

  const raw = form === 'flat' ? parseFlat(data, locate) : parseLegacy(data, locate);
  const issues = [...crossFieldIssues(raw, configPath, locate), ...propertiesSchemaIssues(raw.properties, raw.required, locate)];
  if (issues.length > 0) fail(issues);
  return toSpec(raw);
}

/**
 * sha256 (hex) of the normalized spec as canonical JSON: key order does not matter except inside
 * `properties` maps, whose order shapes the prompt; YAML layout and comments never matter.
 */
export function agentContentHash(spec: AgentSpec): string {
  return createHash('sha256')
    .update(JSON.stringify(canonicalize(spec)))
    .digest('hex');
}

function parseFlat(data: unknown, locate: Locate): RawAgent {
  const result = flatAgent.safeParse(data, { error: friendlyMessage });
  if (!result.success) fail(zodIssues(result.error, 'flat', locate));
  return result.data;
}

function parseLegacy(data: unknown, locate: Locate): RawAgent {
  const result = legacyAgent.safeParse(data, { error: friendlyMessage });
  if (!result.success) fail(zodIssues(result.error, 'legacy', locate));
  const { json_schema_extra: extra, ...document } = result.data;
  const { resources, tools, ...config } = extra;
  const resourceTools: RawTool[] = resources.flatMap((resource) => {
    const name = resource.name?.toLowerCase().replaceAll(' ', '_');
    return name ? [{ name, description: resource.description, requires_approval: false }] : [];
  });
  const named = new Set(tools.map((tool) => tool.name));
  return {
    ...document,
    ...config,
    tools: [
      ...tools.map(({ mcp_server, ...tool }) => ({ ...tool, server: tool.server ?? mcp_server })),
      ...resourceTools.filter((tool) => !named.has(tool.name)),
    ],
  };
}

function crossFieldIssues(raw: RawAgent, configPath: Path, locate: Locate): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const add = (path: Path, message: string) => issues.push({ path, message, ...locate(path) });
  const seen = new Set<string>();
  raw.tools.forEach((tool, index) => {
    const path = [...configPath, 'tools', index, 'name'];
    // Only names derived from legacy resources can fail here; zod has checked the declared ones.
    if (!TOOL_NAME.test(tool.name)) add([...configPath, 'resources'], `resource name "${tool.name}" ${TOOL_NAME_RULE}`);
    else if (seen.has(tool.name)) add(path, `tool "${tool.name}" is listed more than once`);
    seen.add(tool.name);
  });
  raw.required.forEach((field, index) => {
    if (!Object.hasOwn(raw.properties, field)) add(['required', index], `"${field}" is not defined in properties`);
  });
  if (raw.structured_output && Object.keys(raw.properties).length === 0) {
    add([...configPath, 'structured_output'], 'structured output needs at least one field in properties');
  }
  return issues;
}

function toSpec(raw: RawAgent): AgentSpec {
  const limits: AgentLimits = {};
  if (raw.limits.request_limit !== undefined) limits.requestLimit = raw.limits.request_limit;
  if (raw.limits.total_tokens_limit !== undefined) limits.totalTokensLimit = raw.limits.total_tokens_limit;
  return {
    name: raw.name,
    kind: raw.kind,
    audience: raw.audience ?? defaultAudience(raw.kind),
    ...(raw.version !== undefined && { version: raw.version }),
    description: raw.description,
    properties: raw.properties,
    required: raw.required,
    tools: raw.tools.map(toToolRef),
    ...(raw.model !== undefined && { model: raw.model }),
    ...(raw.temperature !== undefined && { temperature: raw.temperature }),
    ...(raw.max_tokens !== undefined && { maxTokens: raw.max_tokens }),
    maxIterations: raw.max_iterations,
    limits,
    structuredOutput: raw.structured_output,
  };
}

function toToolRef(tool: RawTool): ToolRef {
  const description = tool.description?.trim();
  return {
    name: tool.name,
    ...(tool.server && { server: tool.server }),
    ...(description && { description }),
    requiresApproval: tool.requires_approval,
  };
}

// YAML reads `version: 1.0` as the number 1; the text as written is what the author meant.
function keepVersionText(doc: Document, data: Record<string, unknown>, configPath: Path): void {
  const node = doc.getIn([...configPath, 'version'], true);
  if (!isScalar(node) || typeof node.value !== 'number' || node.source === undefined) return;
  const holder = configPath.length === 0 ? data : data[configPath[0] as string];
  if (holder !== null && typeof holder === 'object' && !Array.isArray(holder)) {
    (holder as Record<string, unknown>).version = node.source;
  }
}

function zodIssues(error: z.ZodError, form: Form, locate: Locate): FieldIssue[] {
  return locatedZodIssues(error, locate, (parent, key) => unknownKeyMessage(form, parent, key));
}

function unknownKeyMessage(form: Form, parent: Path, key: string): string {
  if (form === 'legacy' && parent.length === 0 && knownKeys.extra.includes(key)) {
    return `unknown key "${key}": in the legacy form it belongs under json_schema_extra`;
  }
  const suggestion = closest(key, keysAt(form, parent));
  return suggestion ? `unknown key "${key}" (did you mean "${suggestion}"?)` : `unknown key "${key}"`;
}

function keysAt(form: Form, parent: Path): string[] {
  const inExtra = form === 'legacy' && parent[0] === 'json_schema_extra';
  const relative = inExtra ? parent.slice(1) : parent;
  if (parent.length === 0) return form === 'flat' ? knownKeys.flat : knownKeys.legacy;
  if (relative.length === 0) return knownKeys.extra;
  if (relative[0] === 'limits') return knownKeys.limits;
  if (relative[0] === 'tools') return form === 'legacy' ? knownKeys.legacyTool : knownKeys.tool;
  if (relative[0] === 'resources') return knownKeys.resource;
  return [];
}

function closest(word: string, candidates: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

// Entries of a `properties` map keep their order (it is the prompt's order); every other object is sorted.
function canonicalize(value: unknown, ordered = false): unknown {
  if (Array.isArray(value)) return value.map((item) => canonicalize(item));
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  if (!ordered) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, canonicalize(item, !ordered && key === 'properties')]));
}

function fail(issues: FieldIssue[]): never {
  failLocated('agent YAML', issues);
}
