import type { Logger } from '../logger.js';
import type { ApprovalService } from './approvals.js';
import type { Supervisor } from '../engine/supervisor.js';

/**
 * Periodic recovery, also run once at start-up: applies default decisions to expired approvals
 * and interrupts or resumes turns that a stopped process left behind, then `tidy` (housekeeping the
 * database does not do itself). Safe on any number of processes at once (every step claims its
 * rows in the database).
 */
export function startMaintenance(deps: {
  approvals: ApprovalService;
  supervisor: Supervisor;
  logger: Logger;
  intervalMs: number;
  tidy?: () => Promise<unknown>;
}): () => Promise<void> {
  let running: Promise<void> = Promise.resolve();
  const tick = () => {
    running = running.then(async () => {
      try {
        await deps.approvals.expireDue();
        await deps.supervisor.sweep();
        await deps.tidy?.();
      } catch (error) {
        deps.logger.error({ err: error }, 'maintenance sweep failed');
      }
    });
  };
  tick();
  const timer = setInterval(tick, deps.intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
