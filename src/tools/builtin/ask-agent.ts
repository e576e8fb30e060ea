import type { DelegationResult, ToolDefinition } from '../tool.js';

interface AskAgentArgs {
  agent_name: string;
  input_text: string;
  input_data?: unknown;
}

/**
 * Delegates to another agent. The child runs in the same session (it sees the conversation), its
 * events stream live into this turn, and its answer comes back as this tool's result.
 */
export const askAgentTool: ToolDefinition<AskAgentArgs> = {
  name: 'ask_agent',
  description: 'Ask another agent to do part of the work. Its answer is returned to you; the user already sees it streamed.',
  parameters: {
    type: 'object',
    properties: {
      agent_name: { type: 'string', minLength: 1, maxLength: 64, description: 'Name of the agent to ask.' },
      input_text: { type: 'string', minLength: 1, maxLength: 100000, description: 'What to ask it.' },
      input_data: { description: 'Optional structured input.' },
    },
    required: ['agent_name', 'input_text'],
    additionalProperties: false,
  },
  async handler(args, ctx) {
    return askAgentResult(await ctx.delegate({ agentName: args.agent_name, inputText: args.input_text, inputData: args.input_data }));
  },
};

/** What the parent model receives from a child, whether it answered at once or after a pause. */
export function askAgentResult(result: DelegationResult): Record<string, unknown> {
  if (result.status !== 'COMPLETED') {
    return { agent: result.agent, status: result.status, error: `Agent ${result.agent} ended with status ${result.status}`, answer: result.content };
  }
  return { agent: result.agent, answer: result.content };
}
