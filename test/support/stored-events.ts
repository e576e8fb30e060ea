import type { SqlClient } from '../../src/db/sql-client.js';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { readLog } from '../../src/events/event-log.js';

/** A turn's stored events in log order, as a late reader gets them from its chunks (turn_events rows). */
export function storedEvents(sql: SqlClient, turnId: string): Promise<AgentEvent[]> {
  return readLog(sql, turnId, 0);
}
