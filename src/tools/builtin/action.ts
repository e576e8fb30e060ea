import type { ToolDefinition } from '../tool.js';
import { NOTE_FIELDS, withRiskLevel } from './note-fields.js';

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
          ...NOTE_FIELDS,
          session_name: { type: 'string', maxLength: 200, description: 'A short name for the conversation, for display.' },
          risk_score: { type: 'integer', minimum: 0, maximum: 100 },
        },
      },
    },
    required: ['type'],
    additionalProperties: false,
  },
  async handler(args, ctx) {
    ctx.emit({ type: 'action', actionType: args.type, payload: withRiskLevel(args.payload ?? {}) });
    return { recorded: true };
  },
};
