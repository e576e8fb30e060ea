import type { ToolDefinition } from '../tool.js';

interface ActionArgs {
  type: string;
  payload?: Record<string, unknown>;
}

/**
 * Lets an agent emit a typed observation (confidence, sources, flags, risk level…) into the
 * stream as an `action` event, next to its text.
 */
export const actionTool: ToolDefinition<ActionArgs> = {
  name: 'action',
  description:
    'Emit a typed event for the user interface, e.g. type "observation" with payload {confidence, sources, session_name, references, flags, risk_level, risk_score, extra}. Observations are kept in the session. Does not change what you say.',
  parameters: {
    type: 'object',
    properties: {
      type: { type: 'string', minLength: 1, maxLength: 64, description: 'Kind of action, e.g. observation, elicit, progress.' },
      payload: {
        type: 'object',
        description: 'Typed fields of the action.',
        properties: {
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          sources: { type: 'array', items: { type: 'string' }, description: 'Entity keys used.' },
          session_name: { type: 'string', maxLength: 200, description: 'A short name for the conversation, for display.' },
          references: { type: 'array', items: { type: 'string' }, description: 'Links to documents.' },
          flags: { type: 'array', items: { type: 'string' } },
          // REMLight says `moderate`; `medium` is kept for agents written against earlier versions.
          risk_level: { type: 'string', enum: ['low', 'moderate', 'medium', 'high', 'critical'] },
          risk_score: { type: 'integer', minimum: 0, maximum: 100 },
          extra: { type: 'object', description: 'Extension fields.' },
        },
      },
    },
    required: ['type'],
    additionalProperties: false,
  },
  async handler(args, ctx) {
    ctx.emit({ type: 'action', actionType: args.type, payload: args.payload ?? {} });
    return { recorded: true };
  },
};
