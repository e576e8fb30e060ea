import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import type { ToolRef } from '../../src/agents/spec.js';
import { ValidationError } from '../../src/errors.js';
import { z } from 'zod';
import type { RemService } from '../../src/rem/service.js';
import { builtinTools } from '../../src/tools/builtin/builtin-tools.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext, ToolDefinition } from '../../src/tools/tool.js';

const tool = (handler: ToolDefinition['handler']): ToolDefinition => ({ name: 'probe', description: 'A probe.', parameters: { type: 'object' }, handler });
const ctx = {} as ToolContext;

describe('tool failures', () => {
  it('reach the model as a generic message with a code; the details go to the failure hook only', async () => {
    const failures: unknown[] = [];
    const registry = new ToolRegistry(
      [
        tool(async () => {
          throw new Error('connect ECONNREFUSED 10.0.0.5:5432 (user app_owner)');
        }),
      ],
      (error) => failures.push(error),
    );
    const outcome = await registry.execute('probe', {}, ctx);
    expect(outcome).toEqual({ isError: true, result: { error: 'The probe tool failed unexpectedly', code: 'TOOL_FAILED' } });
    expect(JSON.stringify(outcome)).not.toMatch(/10\.0\.0\.5|app_owner|ECONNREFUSED/);
    expect(failures).toHaveLength(1);
  });

  it('pass expected failures on with their own message and code', async () => {
    const registry = new ToolRegistry([
      tool(async () => {
        throw new ValidationError('query: must not be empty');
      }),
    ]);
    expect(await registry.execute('probe', {}, ctx)).toEqual({ isError: true, result: { error: 'query: must not be empty', code: 'VALIDATION_FAILED' } });
  });
});

describe('built-in tools', () => {
  // Only the definitions are read: no handler runs.
  const tools = builtinTools({ rem: {} as RemService });

  it('have parameter schemas that compile (the registry compiles each on the tool’s first call)', () => {
    const ajv = new Ajv({ allErrors: true, strict: false });
    for (const def of tools) expect(() => ajv.compile(def.parameters), def.name).not.toThrow();
  });

  it('are each written once, with defineTool: the model’s JSON Schema is derived from the zod input', () => {
    expect(tools.map((t) => t.name).sort()).toEqual(['action', 'ask_agent', 'register_metadata', 'save_memory', 'search']);
    for (const def of tools) {
      expect(def.input, def.name).toBeInstanceOf(z.ZodObject);
      const { $schema: _draft, ...derived } = z.toJSONSchema(def.input!, { target: 'draft-7', io: 'input' });
      expect(def.parameters, def.name).toEqual(derived);
      expect(def.parameters, def.name).toMatchObject({ type: 'object', additionalProperties: false });
      expect(def.parameters, def.name).not.toHaveProperty('$schema');
    }
  });
});

describe('tool specs', () => {
  it('are built once per tool list and again once a tool is added, with the agent’s note after the tool’s description', () => {
    const registry = new ToolRegistry([tool(async () => ({}))]);
    const refs: ToolRef[] = [
      { name: 'probe', description: 'Use it twice.', requiresApproval: false },
      { name: 'late', requiresApproval: false },
    ];
    const first = registry.specsFor(refs);
    expect(first).toEqual([{ name: 'probe', description: 'A probe.\n\nTool Notes: Use it twice.', parameters: { type: 'object' } }]);
    expect(registry.specsFor(refs)).toBe(first);
    registry.add({ ...tool(async () => ({})), name: 'late', description: 'Registered later.' });
    expect(registry.specsFor(refs).map((spec) => spec.name)).toEqual(['probe', 'late']);
  });
});
