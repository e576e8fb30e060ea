import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolContext, ToolDefinition } from './tool.js';

/** What `defineTool` takes: one zod schema for the arguments, from which everything else is derived. */
interface ToolSpecification<In extends z.ZodObject, Out extends z.ZodObject | undefined> {
  name: string;
  description: string;
  /** The arguments. Unknown keys are refused (`additionalProperties: false` for the model). */
  input: In;
  requiresApproval?: boolean;
  /** Offered only to a turn bound to a corpus. */
  requiresCorpus?: boolean;
  /** MCP's hints about what the tool does (read-only, destructive, idempotent, open world). */
  annotations?: ToolAnnotations;
  /** The shape of the result: declared as the MCP tool's `outputSchema`, and the handler must return it. */
  output?: Out;
  handler(args: z.output<In>, ctx: ToolContext): Promise<Out extends z.ZodObject ? z.input<Out> : unknown>;
}

/**
 * A tool from one zod schema: the JSON Schema the model and MCP clients see, the handler's
 * argument type and the validation of the model's arguments all come from `input`.
 */
export function defineTool<In extends z.ZodObject, Out extends z.ZodObject | undefined = undefined>(
  spec: ToolSpecification<In, Out>,
): ToolDefinition<z.output<In>> {
  const input = spec.input.strict();
  let parameters: Record<string, unknown> | undefined;
  return {
    name: spec.name,
    description: spec.description,
    ...(spec.requiresApproval ? { requiresApproval: true } : {}),
    ...(spec.requiresCorpus ? { requiresCorpus: true } : {}),
    ...(spec.annotations ? { annotations: spec.annotations } : {}),
    ...(spec.output ? { output: spec.output } : {}),
    input,
    // Derived on first use: a start converts only the schemas some agent is offered.
    get parameters() {
      return (parameters ??= toolParameters(input));
    },
    handler: (args, ctx) => spec.handler(args, ctx),
  };
}

/**
 * The JSON Schema of a tool's arguments as model APIs take it (no `$schema`), the same draft and
 * input view the MCP SDK lists the tool with.
 */
function toolParameters(input: z.ZodObject): Record<string, unknown> {
  const { $schema: _draft, ...schema } = z.toJSONSchema(input, { target: 'draft-7', io: 'input' });
  return schema;
}

/** Arguments checked against a tool's zod input: the parsed value (defaults applied), or what is wrong, path first. */
export function parseToolInput(input: z.ZodType, args: unknown): { ok: true; args: Record<string, unknown> } | { ok: false; problems: string[] } {
  const parsed = input.safeParse(args);
  if (parsed.success) return { ok: true, args: parsed.data as Record<string, unknown> };
  return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.') || '(arguments)'}: ${issue.message}`) };
}
