import type { TurnStatus } from '../db/generated/enums.js';

// No runtime imports: the chat app (web/) imports this module too.

/**
 * Every turn status, active (the turn may still run and emit events) or terminal (it ended with a
 * `final` event). Checked against Prisma's enum: a status added to the schema fails the build
 * until it is classified here.
 */
const KIND = {
  RUNNING: 'active',
  AWAITING_APPROVAL: 'active',
  COMPLETED: 'terminal',
  TOOL_CALLS: 'terminal',
  MAX_ITERATIONS: 'terminal',
  ERROR: 'terminal',
  CANCELLED: 'terminal',
  INTERRUPTED: 'terminal',
} as const satisfies Record<TurnStatus, 'active' | 'terminal'>;

type Kind = typeof KIND;
type StatusesOf<K extends Kind[keyof Kind]> = { [S in keyof Kind]: Kind[S] extends K ? S : never }[keyof Kind];

export type ActiveStatus = StatusesOf<'active'>;
export type TerminalStatus = StatusesOf<'terminal'>;

const ALL = Object.keys(KIND) as (keyof Kind)[];
export const ACTIVE_STATUSES: ActiveStatus[] = ALL.filter((s): s is ActiveStatus => KIND[s] === 'active');

export function isTerminal(status: string): status is TerminalStatus {
  return (KIND as Record<string, string>)[status] === 'terminal';
}
