/**
 * The fields of an agent's notes about its answer, defined once for the tools that take them:
 * `register_metadata` (the agents' and the MCP server's) and the payload of an `action` (an observation).
 */
import { z } from 'zod';

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

/** The shared fields, as a zod shape to spread into a tool's input. */
export const NOTE_FIELDS = {
  confidence: z.number().min(0).max(1).optional(),
  sources: z.array(z.string()).max(50).optional().describe('Entity keys used.'),
  references: z.array(z.string()).max(50).optional().describe('Links to documents.'),
  flags: z.array(z.string()).max(50).optional(),
  risk_level: z.enum([...RISK_LEVELS, ...RISK_LEVEL_ALIASES.keys()]).optional(),
  extra: z.record(z.string(), z.unknown()).optional().describe('Extension fields.'),
};

/** `register_metadata`'s own arguments: the shared fields and free-text notes. */
export const METADATA_FIELDS = { ...NOTE_FIELDS, notes: z.string().max(4000).optional() };

/** The notes with `risk_level` on the one scale (an alias becomes its level). */
export function withRiskLevel<T extends { risk_level?: unknown }>(notes: T): T {
  const level = typeof notes.risk_level === 'string' ? RISK_LEVEL_ALIASES.get(notes.risk_level) : undefined;
  return level ? { ...notes, risk_level: level } : notes;
}
