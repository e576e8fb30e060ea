import { z } from 'zod';
import { defineTool } from '../define-tool.js';
import { METADATA_FIELDS, withRiskLevel } from './note-fields.js';

/**
 * The agent's notes about its answer (REM's "take notes" pattern). They are streamed as an
 * `action` event of type `metadata` and stored on the turn's assistant message.
 */
export const registerMetadataTool = defineTool({
  name: 'register_metadata',
  description:
    'Record structured notes about your answer: confidence (0-1), sources, references, flags, risk_level, notes. Call it once before answering when you have findings worth keeping.',
  input: z.object(METADATA_FIELDS),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async handler(args, ctx) {
    ctx.emit({ type: 'action', actionType: 'metadata', payload: withRiskLevel({ ...args }) });
    return { recorded: true };
  },
});
