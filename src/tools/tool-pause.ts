/**
 * Thrown by a tool whose work waits on something outside the turn (a child agent paused for a
 * human decision). The runner then pauses the turn instead of returning an error to the model.
 */
export class ToolPause extends Error {
  constructor(readonly childTurnId: string) {
    super(`Waiting for child turn ${childTurnId}`);
    this.name = 'ToolPause';
  }
}
