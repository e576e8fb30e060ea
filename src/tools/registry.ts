import { Ajv, type ValidateFunction } from 'ajv';
import type { ToolRef } from '../agents/spec.js';
import { isAppError } from '../errors.js';
import type { ToolSpec } from '../llm/chat-model.js';
import { parseToolInput } from './define-tool.js';
import type { ToolContext, ToolDefinition } from './tool.js';
import { ToolPause } from './tool-pause.js';
import { inSpan } from '../telemetry/tracing.js';

/** Tools served by others (MCP servers), named by a tool reference's `server`. */
export interface RemoteTools {
  has(server: string): boolean;
  tool(server: string, name: string): ToolDefinition | undefined;
}

export interface ToolOutcome {
  result: unknown;
  isError: boolean;
}

/**
 * The tools the runtime knows. Agents only ever see the tools they declare; arguments are parsed
 * and validated here, and a failing tool becomes `{ "error": "…" }` for the model instead of
 * ending the turn.
 */
export class ToolRegistry {
  /** Each tool's validator is compiled by its first call: compiling them all would slow every start. */
  private readonly tools = new Map<string, { def: ToolDefinition; validate?: ValidateFunction }>();
  private readonly ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false });
  /** Validators of remote tools' schemas, dropped with the definition when a server lists its tools again. */
  private readonly remoteValidators = new WeakMap<ToolDefinition, ValidateFunction | null>();
  /** Specs of tool lists without remote tools, per list (an agent version's): built once, until a tool is added. */
  private localSpecs = new WeakMap<ToolRef[], readonly ToolSpec[]>();

  constructor(
    // Tools of every argument type: the registry validates arguments against each one's JSON Schema.
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    definitions: ToolDefinition<any>[] = [],
    /** Told about tool failures that are not expected ones (the model and the user get a generic message). */
    private readonly onFailure: (error: unknown, tool: string) => void = () => {},
    private readonly remote?: RemoteTools,
  ) {
    for (const def of definitions) this.add(def);
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see the constructor
  add(def: ToolDefinition<any>): void {
    if (this.tools.has(def.name)) throw new Error(`Tool ${def.name} is registered twice`);
    this.tools.set(def.name, { def });
    this.localSpecs = new WeakMap();
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** A reference can be served: a local tool, or a tool of a configured MCP server (listed or not yet). */
  knows(ref: ToolRef): boolean {
    return ref.server ? Boolean(this.remote?.has(ref.server)) : this.tools.has(ref.name);
  }

  names(): string[] {
    return [...this.tools.keys()].sort();
  }

  get(name: string): ToolDefinition | undefined {
    return this.tools.get(name)?.def;
  }

  /**
   * Function specs for the tools an agent declares. An agent's note on a tool is appended to the
   * tool's own description (p8's Tool Notes), never replacing it: the tool's usage (e.g. the REM
   * dialect of `search`) stays in front of the model. An MCP tool's description is its server's;
   * server tools the server does not list (now) are left out. The same list of local tools gets the
   * same specs every time (a turn's context budget counts their tokens once).
   */
  specsFor(refs: ToolRef[]): readonly ToolSpec[] {
    if (refs.some((ref) => ref.server)) return this.buildSpecs(refs);
    let specs = this.localSpecs.get(refs);
    if (!specs) this.localSpecs.set(refs, (specs = this.buildSpecs(refs)));
    return specs;
  }

  private buildSpecs(refs: ToolRef[]): ToolSpec[] {
    return refs.flatMap((ref) => {
      if (ref.server) {
        const def = this.remote?.tool(ref.server, ref.name);
        const description = [def?.description, ref.description].filter(Boolean).join('\n\n');
        return def ? [{ name: def.name, description, parameters: def.parameters }] : [];
      }
      const def = this.tools.get(ref.name)?.def;
      if (!def) return [];
      const note = ref.description?.trim();
      return [{ name: def.name, description: note ? `${def.description}\n\nTool Notes: ${note}` : def.description, parameters: def.parameters }];
    });
  }

  /** A tool needs a human decision when the registry or the agent's reference says so. */
  requiresApproval(ref: ToolRef | undefined, name: string): boolean {
    return Boolean(ref?.requiresApproval || (!ref?.server && this.tools.get(name)?.def.requiresApproval));
  }

  /** Runs a tool: the local one of that name, or the MCP server's when the agent's reference names a server. */
  execute(name: string, args: Record<string, unknown>, ctx: ToolContext, ref?: ToolRef): Promise<ToolOutcome> {
    const attributes = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, ...(ref?.server ? { 'remgraph.mcp.server': ref.server } : {}) };
    return inSpan(`execute_tool ${name}`, { attributes }, async (span) => {
      const outcome = await this.run(name, args, ctx, ref);
      if (outcome.isError) span.setAttribute('error.type', String((outcome.result as { code?: string }).code ?? 'tool_error'));
      return outcome;
    });
  }

  private async run(name: string, args: Record<string, unknown>, ctx: ToolContext, ref?: ToolRef): Promise<ToolOutcome> {
    const tool = ref?.server ? this.remoteTool(ref.server, name) : this.localTool(name);
    if (!tool) {
      const error = ref?.server ? `Tool "${name}" is not available from MCP server ${ref.server}` : `Unknown tool "${name}"`;
      return { result: { error }, isError: true };
    }
    const checked = this.check(tool, args);
    if (!checked.ok) return { result: { error: `Invalid arguments for ${name}: ${checked.problems.join('; ')}` }, isError: true };
    try {
      return { result: (await tool.def.handler(checked.args, ctx)) ?? null, isError: false };
    } catch (error) {
      if (error instanceof ToolPause) throw error;
      // Expected failures explain themselves; anything else may carry internals (SQL, hosts, paths).
      if (isAppError(error)) return { result: { error: error.message, code: error.code }, isError: true };
      this.onFailure(error, name);
      return { result: { error: `The ${name} tool failed unexpectedly`, code: 'TOOL_FAILED' }, isError: true };
    }
  }

  /** Our tools' arguments are parsed with their zod input (defaults applied); others' are checked against their JSON Schema. */
  private check(tool: { def: ToolDefinition; validate?: ValidateFunction | null }, args: Record<string, unknown>) {
    if (tool.def.input) return parseToolInput(tool.def.input, args);
    if (!tool.validate || tool.validate(args)) return { ok: true as const, args };
    return { ok: false as const, problems: (tool.validate.errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message}`) };
  }

  private localTool(name: string): { def: ToolDefinition; validate?: ValidateFunction } | undefined {
    const tool = this.tools.get(name);
    if (tool && !tool.def.input) tool.validate ??= this.ajv.compile(tool.def.parameters);
    return tool;
  }

  private remoteTool(server: string, name: string): { def: ToolDefinition; validate: ValidateFunction | null } | undefined {
    const def = this.remote?.tool(server, name);
    if (!def) return undefined;
    let validate = this.remoteValidators.get(def);
    if (validate === undefined) {
      try {
        validate = this.ajv.compile(def.parameters);
      } catch {
        // A schema ajv cannot compile is the server's to enforce.
        validate = null;
      }
      this.remoteValidators.set(def, validate);
    }
    return { def, validate };
  }
}

/** Model-supplied argument text as an object; anything unparseable becomes `{}` (then validation speaks). */
export function parseToolArguments(text: string): { args: Record<string, unknown>; parsed: boolean } {
  try {
    const value: unknown = JSON.parse(text || '{}');
    if (value && typeof value === 'object' && !Array.isArray(value)) return { args: value as Record<string, unknown>, parsed: true };
  } catch {
    // fall through
  }
  return { args: {}, parsed: false };
}
