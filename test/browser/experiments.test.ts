import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { chat, registerAgent, useAgentServer } from '../support/agents.js';
import type { RecordedRequest, Script } from '../support/fake-openai.js';
import { CreateDatasetFromTurnsDocument, RunRegressionDocument } from '../generated/graphql.js';
import { useChromium } from './chromium.js';

const env = useAgentServer({ JOB_KINDS: 'experiment', JOB_POLL_MS: '100' });
const browser = useChromium();

const identity = (user: Caller) => ({ mode: 'headers', userId: user.headers['x-user-id'], tenantId: user.headers['x-tenant-id'] });
const judged = (r: RecordedRequest) => r.body.response_format?.json_schema?.name === 'answer-quality';

/** The judge's correctness of each answer, original or replayed (a pass from 0.6). */
const CORRECTNESS: Record<string, number> = { 'Paris.': 0.5, 'Paris, France.': 0.9, 'Level one.': 0.9, 'Level two.': 0.3 };

/** The candidate model: a better first answer, and a worse answer after calling the tool with other arguments; the judge scores by CORRECTNESS. */
const candidate: Script = (req) => {
  if (judged(req)) {
    const answer = /\nAnswer:\n([^]*)$/.exec(req.body.messages.at(-1).content as string)![1]!;
    const correctness = CORRECTNESS[answer]!;
    return { json: { correctness, completeness: 1, groundedness: 1, pass: correctness >= 0.6, reasoning: answer } };
  }
  const last = req.body.messages.at(-1) as { role: string; content: string };
  if (last.role === 'tool') return { text: 'Level two.' };
  if (last.content === 'Observe') return { toolCalls: [{ id: 'c2', name: 'action', arguments: { type: 'observation', payload: { level: 2 } } }] };
  return { text: 'Paris, France.' };
};

describe('the experiments view in Chromium', () => {
  it('follows a regression of real turns and shows each example side by side with its diff, scores and verdict, and the summary', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: tool-agent\ndescription: You call tools when asked.\ntools:\n  - name: action\nmax_iterations: 3\n');
    env.fake.enqueue({ text: 'Paris.' });
    const first = await chat(env.server.url, user, { content: 'Capital of France?', agent: 'tool-agent' });
    env.fake.enqueue({ toolCalls: [{ id: 'c1', name: 'action', arguments: { type: 'observation', payload: { level: 1 } } }] }, { text: 'Level one.' });
    const tool = await chat(env.server.url, user, { content: 'Observe', sessionId: first.sent.session.id, agent: 'tool-agent' });
    const made = (await user.data(CreateDatasetFromTurnsDocument, { input: { name: 'real turns', turnIds: [first.turn.id, tool.turn.id] } }))
      .createDatasetFromTurns;
    if (made.__typename !== 'CreateDatasetFromTurnsSuccess') throw new Error(JSON.stringify(made));

    // The first replay waits until the view shows the regression running.
    const replay = env.fake.holdNext('/v1/chat/completions', (r) => r.body.model === 'other-model');
    env.fake.enqueue(...Array.from({ length: 7 }, () => candidate));
    const queued = (
      await user.data(RunRegressionDocument, {
        input: { datasetId: made.dataset.id, model: 'openai:other-model', evaluators: ['answer-quality'], concurrency: 1 },
      })
    ).runRegression;
    if (queued.__typename !== 'RunRegressionSuccess') throw new Error(JSON.stringify(queued));
    await replay.reached;

    const page = await browser.open(new URL('/', env.server.url).href, identity(user));
    await page.getByTestId('experiments-toggle').click();
    await page.getByTestId('experiment').first().waitFor();
    expect(await page.getByTestId('experiment').first().innerText()).toContain('real turns');
    await page.getByTestId('open-experiment').first().click();
    await page.getByTestId('regression-progress').waitFor();
    expect(await page.getByTestId('regression-progress').innerText()).toContain('0 of 2 examples');
    await browser.screenshot(page, 'experiment-running');
    replay.release();

    await page.getByTestId('regression-progress').waitFor({ state: 'detached' });
    await page.locator('[data-testid=regression-example][data-verdict=REGRESSED]').waitFor();
    const examples = page.getByTestId('regression-example');
    expect(await examples.evaluateAll((all) => all.map((e) => e.getAttribute('data-verdict')))).toEqual(['IMPROVED', 'REGRESSED']);
    const [better, worse] = [examples.nth(0), examples.nth(1)];
    expect(await better.getByTestId('side-output').allInnerTexts()).toEqual(['Paris.', 'Paris, France.']);
    expect(await better.getByTestId('score').filter({ hasText: 'correctness' }).innerText()).toMatch(/answer-quality correctness\s+0\.5\s+→ 0\.9/);
    expect(await better.getByTestId('score').filter({ hasText: 'pass' }).innerText()).toMatch(/answer-quality pass\s+false\s+→ true/);
    expect(await better.locator('[data-testid=text-diff] li').evaluateAll((lines) => lines.map((l) => [l.getAttribute('data-op'), l.textContent]))).toEqual([
      ['REMOVED', '−Paris.'],
      ['ADDED', '+Paris, France.'],
    ]);
    expect(await worse.getByTestId('tool-change').getAttribute('data-op')).toBe('CHANGED');
    expect(await worse.getByTestId('tool-change').innerText()).toContain('arguments changed: payload');
    expect(await worse.getByTestId('changed-argument').allInnerTexts()).toEqual(['payload\n{"level":1}', 'payload\n{"level":2}']);
    expect(await worse.getByTestId('score').filter({ hasText: 'correctness' }).innerText()).toMatch(/0\.9\s+→ 0\.3/);
    expect(await page.getByTestId('regression-summary').innerText()).toMatch(
      /^1 improved · 1 regressed · 0 unchanged \(2 of 2 finished\) · tokens \d+ → \d+ \([+-]?\d+\) · latency \d+ → \d+ ms \([+-]?\d+ ms\)$/,
    );
    // The list's line of it is current too.
    expect(await page.getByTestId('experiment').first().getAttribute('data-status')).toBe('DONE');
    expect(await page.getByTestId('experiment').first().innerText()).toContain('done 2/2');
    await browser.screenshot(page, 'experiment-view');
    expect(page.problems).toEqual([]);
  });
});
