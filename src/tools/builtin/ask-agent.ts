import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import type { DelegationResult } from '../tool.js';

/**
 * Delegates to another agent. The child runs in the same session (it sees the conversation), its
 * events stream live into this turn, and its answer comes back as this tool's result.
 */
export const askAgentTool = defineTool({
  name: 'ask_agent',
  description: 'Ask another agent to do part of the work. Its answer is returned to you; the user already sees it streamed.',
  input: z.object({
    agent_name: z.string().min(1).max(64).describe('Name of the agent to ask.'),
    input_text: z.string().min(1).max(100000).describe('What to ask it.'),
    input_data: z.unknown().optional().describe('Optional structured input.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async handler(args, ctx) {
    return askAgentResult(await ctx.delegate({ agentName: args.agent_name, inputText: args.input_text, inputData: args.input_data }));
  },
});

/** What the parent model receives from a child, whether it answered at once or after a pause. */
export function askAgentResult(result: DelegationResult): Record<string, unknown> {
  if (result.status !== 'COMPLETED') {
    return { agent: result.agent, status: result.status, error: `Agent ${result.agent} ended with status ${result.status}`, answer: result.content };
  }
  return { agent: result.agent, answer: result.content };
}
