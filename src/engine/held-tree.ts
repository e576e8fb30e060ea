import type { EngineDeps } from './engine-deps.js';
import type { RunResult, TurnRun } from './turn-run.js';

/** A turn tree this process holds: it runs the tree's turns and numbers their events. */
export interface HeldTree {
  rootId: string;
  /** Every turn of the tree open in the hub. */
  turnIds: Set<string>;
  runs: Set<{ run: TurnRun; done: Promise<RunResult> }>;
  controller: AbortController;
  cancelled: boolean;
  /** Child turns started in the tree so far (MAX_CHILD_TURNS). */
  childTurns: number;
  /** An ephemeral tree (see EPHEMERAL_TURN_RETENTION_MS). */
  ephemeral: boolean;
  /** The root's outcome let go of the tree in the database already. */
  released?: boolean;
}

/** What resume and recovery need of the process that holds trees (the Supervisor implements it). */
export interface TreeHost {
  readonly deps: EngineDeps;
  tree(rootId: string): HeldTree | undefined;
  hold(rootId: string, staleBefore?: Date): Promise<HeldTree | undefined>;
  locked<T>(rootId: string, work: () => Promise<T>): Promise<T>;
  launch(tree: HeldTree, run: TurnRun): void;
  letGo(tree: HeldTree): Promise<void>;
  afterDecision(rootId: string): Promise<void>;
}
