import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { NOTE_FIELDS, withRiskLevel } from './note-fields.js';

/**
 * Lets an agent emit a typed observation (confidence, sources, flags, risk level…) into the
 * stream as an `action` event, next to its text.
 */
export const actionTool = defineTool({
  name: 'action',
  description:
    'Emit a typed event for the user interface, e.g. type "observation" with payload {confidence, sources, session_name, references, flags, risk_level, risk_score, extra}. Observations are kept in the session. Does not change what you say.',
  input: z.object({
    type: z.string().min(1).max(64).describe('Kind of action, e.g. observation, elicit, progress.'),
    // Loose: other kinds of action carry fields of their own.
    payload: z
      .looseObject({
        ...NOTE_FIELDS,
        session_name: z.string().max(200).optional().describe('A short name for the conversation, for display.'),
        risk_score: z.number().int().min(0).max(100).optional(),
      })
      .optional()
      .describe('Typed fields of the action.'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async handler(args, ctx) {
    ctx.emit({ type: 'action', actionType: args.type, payload: withRiskLevel(args.payload ?? {}) });
    return { recorded: true };
  },
});
