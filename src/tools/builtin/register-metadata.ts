import type { ToolDefinition } from '../tool.js';

interface MetadataArgs {
  confidence?: number;
  sources?: string[];
  flags?: string[];
  risk_level?: 'low' | 'medium' | 'high' | 'critical';
  notes?: string;
  extra?: Record<string, unknown>;
}

/**
 * The agent's notes about its answer (REM's "take notes" pattern). They are streamed as an
 * `action` event of type `metadata` and stored on the turn's assistant message.
 */
export const registerMetadataTool: ToolDefinition<MetadataArgs> = {
  name: 'register_metadata',
  description:
    'Record structured notes about your answer: confidence (0-1), sources, flags, risk_level, notes. Call it once before answering when you have findings worth keeping.',
  parameters: {
    type: 'object',
    properties: {
      confidence: { type: 'number', minimum: 0, maximum: 1 },
      sources: { type: 'array', items: { type: 'string' }, maxItems: 50 },
      flags: { type: 'array', items: { type: 'string' }, maxItems: 50 },
      risk_level: { type: 'string', enum: ['low', 'medium', 'high', 'critical'] },
      notes: { type: 'string', maxLength: 4000 },
      extra: { type: 'object' },
    },
    additionalProperties: false,
  },
  async handler(args, ctx) {
    ctx.emit({ type: 'action', actionType: 'metadata', payload: { ...args } });
    return { recorded: true };
  },
};
