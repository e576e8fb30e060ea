/** How far a long command has got, for a person on a terminal or for a log. */
export interface ProgressReport {
  /** Units done so far by this run. */
  done: number;
  /** Units this run has to do in all. */
  total: number;
  /** What is happening when it is not counting (e.g. "building the vector index"). */
  note?: string;
}

const REDRAW_MS = 100;
const LOG_EVERY_MS = 5000;
const WIDTH = 30;

/**
 * On a terminal: one bar redrawn in place (done/total, units per second, time left). Otherwise:
 * a plain line at most every five seconds, and whenever the note changes.
 */
export function progressBar(out: NodeJS.WriteStream, unit: string): { update(report: ProgressReport): void; end(): void } {
  const started = performance.now();
  let shownAt = -Infinity;
  let lastNote: string | undefined;
  let drawn = false;
  const line = ({ done, total, note }: ProgressReport) => {
    const seconds = (performance.now() - started) / 1000;
    const rate = seconds > 0 ? done / seconds : 0;
    const left = rate > 0 ? Math.max(0, total - done) / rate : null;
    const figures = `${done.toLocaleString('en')}/${total.toLocaleString('en')} ${unit} · ${Math.round(rate).toLocaleString('en')} ${unit}/s · ETA ${left === null ? '?' : formatDuration(left)}`;
    return note ? `${figures} · ${note}` : figures;
  };
  return {
    update(report) {
      const now = performance.now();
      const noteChanged = report.note !== lastNote;
      lastNote = report.note;
      if (out.isTTY) {
        if (now - shownAt < REDRAW_MS && !noteChanged) return;
        const filled = report.total > 0 ? Math.min(WIDTH, Math.round((report.done / report.total) * WIDTH)) : 0;
        out.write(`\r\x1b[2K[${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}] ${line(report)}`);
        drawn = true;
      } else {
        if (now - shownAt < LOG_EVERY_MS && !noteChanged) return;
        out.write(`${line(report)}\n`);
      }
      shownAt = now;
    },
    end() {
      if (drawn) out.write('\n');
      drawn = false;
    },
  };
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  return minutes < 60
    ? `${minutes}m${String(Math.round(seconds % 60)).padStart(2, '0')}s`
    : `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}
