import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/define-tool.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext } from '../../src/tools/tool.js';

const ctx = {} as ToolContext;

const greet = defineTool({
  name: 'greet',
  description: 'Greets someone.',
  input: z.object({
    who: z.string().min(1).max(20).describe('Whom to greet'),
    times: z.number().int().min(1).max(3).default(1),
    tone: z.enum(['warm', 'dry']).optional(),
  }),
  requiresApproval: true,
  annotations: { readOnlyHint: true },
  output: z.object({ text: z.string() }),
  async handler(args) {
    expectTypeOf(args).toEqualTypeOf<{ who: string; times: number; tone?: 'warm' | 'dry' | undefined }>();
    return { text: `${args.tone === 'dry' ? 'Hi' : 'Hello'} ${args.who}`.repeat(args.times) };
  },
});

describe('defineTool', () => {
  it('derives the JSON Schema the model gets from the zod input: no $schema, unknown keys refused', () => {
    expect(greet.parameters).toEqual({
      type: 'object',
      properties: {
        who: { type: 'string', minLength: 1, maxLength: 20, description: 'Whom to greet' },
        times: { type: 'integer', minimum: 1, maximum: 3, default: 1 },
        tone: { type: 'string', enum: ['warm', 'dry'] },
      },
      required: ['who'],
      additionalProperties: false,
    });
    expect(greet.parameters).toBe(greet.parameters);
    expect(greet).toMatchObject({ name: 'greet', requiresApproval: true, annotations: { readOnlyHint: true } });
    expect(greet.output?.parse({ text: 'x' })).toEqual({ text: 'x' });
  });

  it('runs the handler with the parsed arguments (defaults applied)', async () => {
    const registry = new ToolRegistry([greet]);
    expect(await registry.execute('greet', { who: 'Ada' }, ctx)).toEqual({ isError: false, result: { text: 'Hello Ada' } });
    expect(await registry.execute('greet', { who: 'Ada', times: 2, tone: 'dry' }, ctx)).toEqual({ isError: false, result: { text: 'Hi AdaHi Ada' } });
  });

  it('refuses bad arguments with zod’s message for each, naming the field, without running the handler', async () => {
    let ran = false;
    const registry = new ToolRegistry([
      defineTool({
        name: 'probe',
        description: 'A probe.',
        input: z.object({ level: z.enum(['low', 'high']), count: z.number().int() }),
        async handler() {
          ran = true;
          return null;
        },
      }),
    ]);
    const outcome = await registry.execute('probe', { level: 'purple', count: 1.5, extra: true }, ctx);
    expect(outcome.isError).toBe(true);
    const error = (outcome.result as { error: string }).error;
    expect(error).toMatch(/^Invalid arguments for probe: /);
    expect(error).toContain('level: Invalid option: expected one of "low"|"high"');
    expect(error).toContain('count: Invalid input: expected int, received number');
    expect(error).toContain('(arguments): Unrecognized key: "extra"');
    expect(ran).toBe(false);
  });
});
