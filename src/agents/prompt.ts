import type { AgentSpec, JsonSchema } from './spec.js';

/** OpenAI `response_format` for structured output. */
export interface JsonSchemaResponseFormat {
  type: 'json_schema';
  json_schema: { name: string; schema: JsonSchema; strict?: boolean };
}

export interface RequestInstructionsContext {
  now: Date;
  userId?: string | null;
  userEmail?: string | null;
  userName?: string | null;
  sessionId?: string | null;
  sessionName?: string | null;
  /** Left out when empty. */
  sessionMetadata?: Record<string, unknown> | null;
  /** The agent the session's router chose, for sessions that route. */
  activeAgent?: string | null;
  agentName: string;
  /** From X-Added-Instruction or a programmatic caller. */
  addedInstruction?: string | null;
}

/**
 * The system prompt of a spec: the description, then `## Tool Notes` for tools that carry an
 * agent-specific description, then (conversational agents only) `## Thinking Structure` rendering
 * the properties as reasoning aides. Built once per spec (an agent version): a turn reads it for
 * its context budget and its run, and the token counter finds the same string again.
 */
export function buildSystemPrompt(spec: AgentSpec): string {
  let prompt = systemPrompts.get(spec);
  if (prompt === undefined) systemPrompts.set(spec, (prompt = renderSystemPrompt(spec)));
  return prompt;
}

const systemPrompts = new WeakMap<AgentSpec, string>();

function renderSystemPrompt(spec: AgentSpec): string {
  const parts = [spec.description.trim()];
  const noted = spec.tools.filter((tool) => tool.description);
  if (noted.length > 0) {
    const notes = noted.map((tool) => `- **${tool.name}**: ${oneLine(tool.description ?? '')}`);
    parts.push(['## Tool Notes', ...notes].join('\n'));
  }
  if (!spec.structuredOutput && Object.keys(spec.properties).length > 0) {
    parts.push(thinkingStructure(spec));
  }
  return parts.join('\n\n');
}

/**
 * The `response_format` that makes the model return the agent's properties as JSON, or undefined
 * for conversational agents. The agent description is left out of the schema: it is already the
 * system prompt, and sending it twice only costs tokens.
 */
export function structuredOutputSchema(spec: AgentSpec): JsonSchemaResponseFormat | undefined {
  if (!spec.structuredOutput) return undefined;
  let format = responseFormats.get(spec);
  if (!format) {
    const schema: JsonSchema = {
      type: 'object',
      properties: structuredClone(spec.properties),
      required: [...spec.required],
    };
    format = { type: 'json_schema', json_schema: { name: spec.name, schema } };
    responseFormats.set(spec, format);
  }
  return format;
}

// One object per spec, so the validator compiled for its schema is reused (structured-output.ts).
const responseFormats = new WeakMap<AgentSpec, JsonSchemaResponseFormat>();

/**
 * Per-request context sent with every model call and never persisted (p8's context layer): date and
 * UTC time, who is asking (id, email, name), in which session (id, name, metadata), which agent is
 * answering and, for a routed session, the agent its router chose; then any added instruction. Each
 * line only when known.
 */
export function buildRequestInstructions(ctx: RequestInstructionsContext): string {
  const iso = ctx.now.toISOString();
  const lines = ['[Context]', `Date: ${iso.slice(0, 10)}`, `Time (UTC): ${iso.slice(0, 19)}Z`];
  if (ctx.userId) lines.push(`User ID: ${ctx.userId}`);
  if (ctx.userEmail) lines.push(`User email: ${ctx.userEmail}`);
  if (ctx.userName) lines.push(`User name: ${ctx.userName}`);
  if (ctx.sessionId) lines.push(`Session: ${ctx.sessionId}`);
  if (ctx.sessionName) lines.push(`Session name: ${oneLine(ctx.sessionName)}`);
  if (ctx.sessionMetadata && Object.keys(ctx.sessionMetadata).length > 0) lines.push(`Session metadata: ${JSON.stringify(ctx.sessionMetadata)}`);
  lines.push(`Agent: ${ctx.agentName}`);
  if (ctx.activeAgent) lines.push(`Routing: this session routes; its active agent is ${ctx.activeAgent}`);
  const added = ctx.addedInstruction?.trim();
  return added ? `${lines.join('\n')}\n\n${added}` : lines.join('\n');
}

function thinkingStructure(spec: AgentSpec): string {
  return [
    '## Thinking Structure',
    '',
    'Use these to guide your reasoning. Do NOT include these labels in output:',
    '',
    '```yaml',
    ...renderProperties(spec.properties, spec.required, 0),
    '```',
    '',
    'CRITICAL: Respond with conversational text only. Do NOT output field names, YAML, or JSON.',
  ].join('\n');
}

// Same layout as p8's _render_properties_yaml, except that nested objects mark required fields from
// their own `required` list (p8 reuses the top-level one) and descriptions are kept on one line.
function renderProperties(properties: Record<string, unknown>, required: readonly string[], depth: number): string[] {
  const prefix = '  '.repeat(depth);
  const lines: string[] = [];
  for (const [name, raw] of Object.entries(properties)) {
    const field = asSchema(raw);
    const type = typeName(field.type);
    const description = typeof field.description === 'string' ? oneLine(field.description) : '';
    const comment = description ? [`${prefix}  # ${description}`] : [];
    if (type === 'object') {
      lines.push(`${prefix}${name}:`, ...comment);
      lines.push(...renderProperties(asSchema(field.properties), stringList(field.required), depth + 1));
    } else if (type === 'array') {
      const items = asSchema(field.items);
      const itemType = typeName(items.type);
      lines.push(`${prefix}${name}: [${itemType}]`, ...comment);
      const nested = asSchema(items.properties);
      if (itemType === 'object' && Object.keys(nested).length > 0) {
        lines.push(`${prefix}  # Each item:`, ...renderProperties(nested, stringList(items.required), depth + 2));
      }
    } else {
      const values = Array.isArray(field.enum) ? ` (one of: ${field.enum.map(String).join(', ')})` : '';
      const marker = required.includes(name) ? ' (required)' : '';
      lines.push(`${prefix}${name}: ${type}${values}${marker}`, ...comment);
    }
  }
  return lines;
}

function typeName(type: unknown): string {
  if (typeof type === 'string') return type;
  if (Array.isArray(type) && type.length > 0) return type.map(String).join(' | ');
  return 'any';
}

function asSchema(value: unknown): JsonSchema {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonSchema) : {};
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function oneLine(text: string): string {
  return text.trim().replace(/\s*\n\s*/g, ' ');
}
