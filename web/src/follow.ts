import { subscribe } from './api.js';
import { WebFollowTurnDocument } from './generated/graphql.js';
import type { TurnView } from './turn-view.js';

export type Connection = 'live' | 'reconnecting' | 'closed';

export interface FollowCallbacks {
  changed(): void;
  connection(state: Connection): void;
  failed(message: string): void;
}

/**
 * Streams a turn into its view until the final event. After a dropped connection it resubscribes
 * with the last seq the view holds, so nothing is missed or shown twice. Returns a stop function.
 */
export function followTurn(view: TurnView, on: FollowCallbacks): () => void {
  let stopped = false;
  let attempt = 0;
  let stop = () => {};
  const start = () => {
    stop = subscribe(
      WebFollowTurnDocument,
      { turnId: view.run.turnId, after: view.lastSeq },
      {
        next: (data) => {
          attempt = 0;
          on.connection('live');
          if (view.apply(data.turnEvents)) on.changed();
        },
        complete: () => on.connection('closed'),
        error: (error, dropped) => {
          if (stopped) return;
          if (!dropped) return on.failed(error.message);
          on.connection('reconnecting');
          setTimeout(() => stopped || start(), Math.min(5000, 250 * 2 ** attempt++));
        },
      },
    );
  };
  start();
  return () => {
    stopped = true;
    stop();
  };
}
