import { Prisma } from '../db/generated/client.js';
import { ACTIVE_STATUSES } from './turn-status.js';

/**
 * `('RUNNING', 'AWAITING_APPROVAL')`, for `status IN …` in raw SQL: inlined as literals rather than
 * bound as a parameter, so the statements and their plans stay what they were when written out.
 */
export const ACTIVE_STATUSES_SQL = Prisma.raw(`(${ACTIVE_STATUSES.map((s) => `'${s}'`).join(', ')})`);
