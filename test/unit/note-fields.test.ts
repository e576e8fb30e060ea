import { describe, expect, it } from 'vitest';
import type { AgentEventBody } from '../../src/events/agent-event.js';
import { actionTool } from '../../src/tools/builtin/action.js';
import { RISK_LEVELS } from '../../src/tools/builtin/note-fields.js';
import { registerMetadataTool } from '../../src/tools/builtin/register-metadata.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolContext } from '../../src/tools/tool.js';

function run(name: string, args: Record<string, unknown>) {
  const emitted: AgentEventBody[] = [];
  const ctx = { emit: (event: AgentEventBody) => emitted.push(event) } as unknown as ToolContext;
  return new ToolRegistry([actionTool, registerMetadataTool]).execute(name, args, ctx).then((outcome) => ({ outcome, emitted }));
}

const riskLevels = (name: string) => {
  const parameters = [actionTool, registerMetadataTool].find((t) => t.name === name)!.parameters as any;
  return (parameters.properties.risk_level ?? parameters.properties.payload.properties.risk_level).enum;
};

describe('agents’ notes (register_metadata and action observations)', () => {
  it('register_metadata accepts the REM design’s own example, its risk level stored on the one scale', async () => {
    // rem-design.md, "The register_metadata Pattern".
    const example = {
      confidence: 0.95,
      references: ['sarah-chen', 'q3-report'],
      sources: ['REM database'],
      risk_level: 'green',
      extra: { topics: ['quarterly-review'] },
    };
    const { outcome, emitted } = await run('register_metadata', example);
    expect(outcome).toEqual({ isError: false, result: { recorded: true } });
    expect(emitted).toEqual([{ type: 'action', actionType: 'metadata', payload: { ...example, risk_level: 'low' } }]);
  });

  it('register_metadata takes REMLight’s moderate level as it is', async () => {
    const { outcome, emitted } = await run('register_metadata', { risk_level: 'moderate', references: ['https://example.com/inv'] });
    expect(outcome.isError).toBe(false);
    expect(emitted[0]).toMatchObject({ payload: { risk_level: 'moderate', references: ['https://example.com/inv'] } });
  });

  it('both tools take the same risk levels, and report medium as moderate', async () => {
    expect(riskLevels('register_metadata')).toEqual(riskLevels('action'));
    expect(riskLevels('action')).toEqual(expect.arrayContaining([...RISK_LEVELS]));
    const { emitted } = await run('action', { type: 'observation', payload: { risk_level: 'medium', risk_score: 40 } });
    expect(emitted[0]).toMatchObject({ payload: { risk_level: 'moderate', risk_score: 40 } });
  });

  it('rejects a level outside the scale with the accepted ones', async () => {
    const { outcome, emitted } = await run('register_metadata', { risk_level: 'purple' });
    expect(outcome.isError).toBe(true);
    expect((outcome.result as { error: string }).error).toBe(
      'Invalid arguments for register_metadata: risk_level: Invalid option: expected one of "low"|"moderate"|"high"|"critical"|"medium"|"green"',
    );
    expect(emitted).toEqual([]);
  });
});
