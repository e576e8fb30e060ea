import { Ajv, type ValidateFunction } from 'ajv';
import type { ToolRef } from '../agents/spec.js';
import { isAppError } from '../errors.js';
import type { ToolSpec } from '../llm/chat-model.js';
import type { ToolContext, ToolDefinition } from './tool.js';
import { ToolPause } from './tool-pause.js';

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
  private readonly tools = new Map<string, { def: ToolDefinition; validate: ValidateFunction }>();
  private readonly ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false });

  constructor(
    definitions: ToolDefinition<any>[] = [],
    /** Told about tool failures that are not expected ones (the model and the user get a generic message). */
    private readonly onFailure: (error: unknown, tool: string) => void = () => {},
  ) {
    for (const def of definitions) this.add(def);
  }

  add(def: ToolDefinition<any>): void {
    if (this.tools.has(def.name)) throw new Error(`Tool ${def.name} is registered twice`);
    this.tools.set(def.name, { def, validate: this.ajv.compile(def.parameters) });
  }

  has(name: string): boolean {
    return this.tools.has(name);
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
   * dialect of `search`) stays in front of the model.
   */
  specsFor(refs: ToolRef[]): ToolSpec[] {
    return refs.flatMap((ref) => {
      const def = this.tools.get(ref.name)?.def;
      if (!def) return [];
      const note = ref.description?.trim();
      return [{ name: def.name, description: note ? `${def.description}\n\nTool Notes: ${note}` : def.description, parameters: def.parameters }];
    });
  }

  /** A tool needs a human decision when the registry or the agent's reference says so. */
  requiresApproval(ref: ToolRef | undefined, name: string): boolean {
    return Boolean(ref?.requiresApproval || this.tools.get(name)?.def.requiresApproval);
  }

  async execute(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome> {
    const tool = this.tools.get(name);
    if (!tool) return { result: { error: `Unknown tool "${name}"` }, isError: true };
    if (!tool.validate(args)) {
      const problems = (tool.validate.errors ?? []).map((e) => `${e.instancePath || '(arguments)'} ${e.message}`);
      return { result: { error: `Invalid arguments for ${name}: ${problems.join('; ')}` }, isError: true };
    }
    try {
      return { result: (await tool.def.handler(args, ctx)) ?? null, isError: false };
    } catch (error) {
      if (error instanceof ToolPause) throw error;
      // Expected failures explain themselves; anything else may carry internals (SQL, hosts, paths).
      if (isAppError(error)) return { result: { error: error.message, code: error.code }, isError: true };
      this.onFailure(error, name);
      return { result: { error: `The ${name} tool failed unexpectedly`, code: 'TOOL_FAILED' }, isError: true };
    }
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
