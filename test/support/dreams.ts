import { setTimeout as sleep } from 'node:timers/promises';
import { DreamDocument, JobDocument } from '../generated/graphql.js';
import type { Caller } from './client.js';
import type { DreamedRange } from '../../src/dreaming/dream.js';

/** Dreams over one of the caller's sessions (dreaming, then compaction) and waits for the job to end. */
export async function dreamed(user: Caller, sessionId: string) {
  const { dream } = await user.data(DreamDocument, { input: { sessionId } });
  if (dream.__typename !== 'DreamSuccess') throw new Error(JSON.stringify(dream));
  for (let i = 0; i < 600; i++) {
    const { job } = await user.data(JobDocument, { id: dream.job.id });
    if (job!.status === 'DONE' || job!.status === 'FAILED') return { ...job!, result: job!.result as { sessions: DreamedRange[] } };
    await sleep(50);
  }
  throw new Error('the dream did not finish');
}
