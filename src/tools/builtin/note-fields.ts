/**
 * The fields of an agent's notes about its answer, defined once for both tools that take them:
 * `register_metadata` and the payload of an `action` (an observation).
 */

/** REMLight's risk scale, lowest first: what the notes carry downstream (stream, messages). */
export const RISK_LEVELS = ['low', 'moderate', 'high', 'critical'] as const;
type RiskLevel = (typeof RISK_LEVELS)[number];

/**
 * Other words agents use for a level, accepted and stored as that level: `medium` (agents written
 * against earlier versions of this server) and `green` (the REM design's register_metadata example).
 */
const RISK_LEVEL_ALIASES = new Map<string, RiskLevel>([
  ['medium', 'moderate'],
  ['green', 'low'],
]);

/** JSON Schema properties of the shared fields. */
export const NOTE_FIELDS = {
  confidence: { type: 'number', minimum: 0, maximum: 1 },
  sources: { type: 'array', items: { type: 'string' }, maxItems: 50, description: 'Entity keys used.' },
  references: { type: 'array', items: { type: 'string' }, maxItems: 50, description: 'Links to documents.' },
  flags: { type: 'array', items: { type: 'string' }, maxItems: 50 },
  risk_level: { type: 'string', enum: [...RISK_LEVELS, ...RISK_LEVEL_ALIASES.keys()] },
  extra: { type: 'object', description: 'Extension fields.' },
} as const;

export interface NoteArgs {
  confidence?: number;
  sources?: string[];
  references?: string[];
  flags?: string[];
  risk_level?: string;
  extra?: Record<string, unknown>;
}

/** The notes with `risk_level` on the one scale (an alias becomes its level). */
export function withRiskLevel<T extends { risk_level?: unknown }>(notes: T): T {
  const level = typeof notes.risk_level === 'string' ? RISK_LEVEL_ALIASES.get(notes.risk_level) : undefined;
  return level ? { ...notes, risk_level: level } : notes;
}
