import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject } from 'ajv';
import { LineCounter, isAlias, isMap, isNode, isScalar, isSeq, parseDocument } from 'yaml';
import type { Document, YAMLError } from 'yaml';
import { z } from 'zod';
import { ValidationError, type FieldIssue } from '../errors.js';

export type AgentKind = 'agent' | 'evaluator';

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

export interface AgentLimits {
  requestLimit?: number;
  totalTokensLimit?: number;
}

/** An agent definition, the same whichever YAML form (flat or legacy `json_schema_extra`) it came from. */
export interface AgentSpec {
  name: string;
  kind: AgentKind;
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

type Path = (string | number)[];
type Position = { line?: number; column?: number };
type Locate = (path: Path, atKey?: boolean) => Position;

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
  properties: z
    .record(z.string(), z.record(z.string(), z.unknown(), { error: 'must be a JSON schema (a mapping of keywords)' }))
    .default({}),
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

// Compiling only checks that `properties` is a usable schema; formats are not validated at run time here.
const ajv = new Ajv({
  strict: true,
  allErrors: true,
  validateFormats: false,
  strictTypes: false,
  strictTuples: false,
  logger: false,
  addUsedSchema: false,
});

/**
 * Parses and validates one YAML agent, in the flat form (config at top level) or the legacy form
 * (config under `json_schema_extra`). Throws ValidationError whose issues carry the field path and
 * the 1-based line/column of the offending YAML node.
 */
export function parseAgentYaml(source: string): AgentSpec {
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false });
  const locate = locator(doc, lineCounter);

  if (doc.errors.length > 0) {
    fail(
      doc.errors.map((error) => ({ path: [], message: syntaxMessage(error), ...position(lineCounter, error.pos[0]) })),
    );
  }
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
  const issues = [...crossFieldIssues(raw, configPath, locate), ...jsonSchemaIssues(raw, locate)];
  if (issues.length > 0) fail(issues);
  return toSpec(raw);
}

/**
 * sha256 (hex) of the normalized spec as canonical JSON: key order does not matter except inside
 * `properties` maps, whose order shapes the prompt; YAML layout and comments never matter.
 */
export function agentContentHash(spec: AgentSpec): string {
  return createHash('sha256').update(JSON.stringify(canonicalize(spec))).digest('hex');
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

function jsonSchemaIssues(raw: RawAgent, locate: Locate): FieldIssue[] {
  const schema = { type: 'object', properties: raw.properties, required: raw.required };
  if (!ajv.validateSchema(schema)) {
    const reported = new Set<string>();
    return (ajv.errors ?? []).flatMap((error) => {
      // A failed anyOf in the meta-schema yields several errors for one node; the first says the most.
      if (reported.has(error.instancePath)) return [];
      reported.add(error.instancePath);
      const path = pointerToPath(error.instancePath, schema);
      return [{ path, message: `invalid JSON schema: ${ajvMessage(error)}`, ...locate(path) }];
    });
  }
  try {
    ajv.compile(schema);
    return [];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const keyword = /unknown keyword: "([^"]+)"/.exec(message)?.[1];
    const path = (keyword !== undefined && findKeyword(raw.properties, keyword)) || ['properties'];
    return [{ path, message: `invalid JSON schema: ${message}`, ...locate(path, keyword !== undefined) }];
  } finally {
    ajv.removeSchema(schema);
  }
}

function toSpec(raw: RawAgent): AgentSpec {
  const limits: AgentLimits = {};
  if (raw.limits.request_limit !== undefined) limits.requestLimit = raw.limits.request_limit;
  if (raw.limits.total_tokens_limit !== undefined) limits.totalTokensLimit = raw.limits.total_tokens_limit;
  return {
    name: raw.name,
    kind: raw.kind,
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

function syntaxMessage(error: YAMLError): string {
  if (error.code === 'MULTIPLE_DOCS') return 'an agent is one YAML document; remove the extra "---" separator';
  // The parser gives up on deep nesting by running out of stack; say what the input did wrong.
  if (/call stack/i.test(error.message)) return 'YAML syntax: collections are nested too deeply';
  return `YAML syntax: ${error.message}`;
}

const friendlyMessage: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${expectedText(issue.expected)}, not ${describeValue(issue.input)}`;
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      if (issue.origin === 'array') return `must have at least ${issue.minimum} item(s)`;
      return `must be ${issue.inclusive === false ? '>' : '>='} ${issue.minimum}`;
    case 'too_big':
      if (issue.origin === 'string' || issue.origin === 'array') return undefined;
      return `must be ${issue.inclusive === false ? '<' : '<='} ${issue.maximum}`;
    case 'invalid_value':
      return `must be ${issue.values.map((value) => JSON.stringify(value)).join(' or ')}`;
    default:
      return undefined;
  }
};

function expectedText(expected: string): string {
  const names: Record<string, string> = {
    string: 'text',
    number: 'a number',
    int: 'an integer',
    boolean: 'true or false',
    array: 'a list',
    object: 'a mapping',
    record: 'a mapping',
  };
  return names[expected] ?? expected;
}

function describeValue(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return `text ${JSON.stringify(value)}`;
  if (typeof value === 'number' && !Number.isInteger(value)) return `the number ${value}`;
  return `${typeof value} ${String(value)}`;
}

function zodIssues(error: z.ZodError, form: Form, locate: Locate): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    const path = issue.path.filter((segment): segment is string | number => typeof segment !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => {
        const keyPath = [...path, key];
        return { path: keyPath, message: unknownKeyMessage(form, path, key), ...locate(keyPath, true) };
      });
    }
    return [{ path, message: issue.message, ...locate(path) }];
  });
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

function ajvMessage(error: ErrorObject): string {
  const allowed = (error.params as { allowedValues?: unknown[] }).allowedValues;
  if (error.keyword === 'enum' && Array.isArray(allowed)) return `must be one of ${allowed.join(', ')}`;
  return error.message ?? error.keyword;
}

function pointerToPath(pointer: string, root: unknown): Path {
  const path: Path = [];
  let value = root;
  for (const encoded of pointer.split('/').slice(1)) {
    const segment = encoded.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(value)) {
      path.push(Number(segment));
      value = value[Number(segment)];
    } else {
      path.push(segment);
      value = isRecord(value) ? value[segment] : undefined;
    }
  }
  return path;
}

// Walk schema positions only, so a property *named* like the keyword is not mistaken for it.
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'required']);

function findKeyword(properties: Record<string, unknown>, keyword: string): Path | undefined {
  for (const [name, schema] of Object.entries(properties)) {
    const found = findInSchema(schema, keyword, ['properties', name]);
    if (found) return found;
  }
  return undefined;
}

function findInSchema(schema: unknown, keyword: string, path: Path): Path | undefined {
  if (!isRecord(schema)) return undefined;
  for (const [key, value] of Object.entries(schema)) {
    if (key === keyword) return [...path, key];
    if (DATA_KEYWORDS.has(key)) continue;
    let found: Path | undefined;
    if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      for (const [name, sub] of Object.entries(value)) {
        found ??= findInSchema(sub, keyword, [...path, key, name]);
      }
    } else if (Array.isArray(value)) {
      value.forEach((sub, index) => {
        found ??= findInSchema(sub, keyword, [...path, key, index]);
      });
    } else {
      found = findInSchema(value, keyword, [...path, key]);
    }
    if (found) return found;
  }
  return undefined;
}

function locator(doc: Document, lineCounter: LineCounter): Locate {
  return (path, atKey = false) => {
    let node: unknown = doc.contents;
    let offset = rangeStart(node);
    for (const [index, segment] of path.entries()) {
      if (isAlias(node)) node = node.resolve(doc);
      if (isMap(node)) {
        const pair = node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(segment));
        if (!pair) break;
        const keyStart = rangeStart(pair.key);
        if (atKey && index === path.length - 1) {
          offset = keyStart ?? offset;
          break;
        }
        node = pair.value;
        offset = rangeStart(pair.value) ?? keyStart ?? offset;
      } else if (isSeq(node)) {
        const item: unknown = node.items[Number(segment)];
        if (item === undefined) break;
        node = item;
        offset = rangeStart(item) ?? offset;
      } else {
        break;
      }
    }
    return offset === undefined ? {} : position(lineCounter, offset);
  };
}

function rangeStart(node: unknown): number | undefined {
  return isNode(node) && node.range ? node.range[0] : undefined;
}

function position(lineCounter: LineCounter, offset: number): Position {
  const { line, col } = lineCounter.linePos(offset);
  return { line, column: col };
}

function fail(issues: FieldIssue[]): never {
  const sorted = [...issues].sort(
    (a, b) => (a.line ?? Infinity) - (b.line ?? Infinity) || (a.column ?? 0) - (b.column ?? 0),
  );
  const [first] = sorted;
  const more = sorted.length > 1 ? ` (and ${sorted.length - 1} more)` : '';
  throw new ValidationError(`Invalid agent YAML: ${first ? describeIssue(first) : 'unknown problem'}${more}`, sorted);
}

function describeIssue(issue: FieldIssue): string {
  const where = issue.line === undefined ? '' : ` (line ${issue.line}, column ${issue.column ?? 1})`;
  const path = formatPath(issue.path);
  return `${path ? `${path}: ` : ''}${issue.message}${where}`;
}

function formatPath(path: Path): string {
  return path.reduce<string>(
    (text, segment) => (typeof segment === 'number' ? `${text}[${segment}]` : text ? `${text}.${segment}` : segment),
    '',
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

// Entries of a `properties` map keep their order (it is the prompt's order); every other object is sorted.
function canonicalize(value: unknown, ordered = false): unknown {
  if (Array.isArray(value)) return value.map((item) => canonicalize(item));
  if (!isRecord(value)) return value;
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  if (!ordered) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, item]) => [key, canonicalize(item, !ordered && key === 'properties')]));
}
