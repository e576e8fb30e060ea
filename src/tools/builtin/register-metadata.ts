import type { ToolDefinition } from '../tool.js';
import { NOTE_FIELDS, withRiskLevel, type NoteArgs } from './note-fields.js';

interface MetadataArgs extends NoteArgs {
  notes?: string;
}

/**
 * The agent's notes about its answer (REM's "take notes" pattern). They are streamed as an
 * `action` event of type `metadata` and stored on the turn's assistant message.
 */
export const registerMetadataTool: ToolDefinition<MetadataArgs> = {
  name: 'register_metadata',
  description:
    'Record structured notes about your answer: confidence (0-1), sources, references, flags, risk_level, notes. Call it once before answering when you have findings worth keeping.',
  parameters: {
    type: 'object',
    properties: {
      ...NOTE_FIELDS,
      notes: { type: 'string', maxLength: 4000 },
    },
    additionalProperties: false,
  },
  async handler(args, ctx) {
    ctx.emit({ type: 'action', actionType: 'metadata', payload: withRiskLevel({ ...args }) });
    return { recorded: true };
  },
};
