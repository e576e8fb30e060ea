import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { followTurn, GATED_AGENT, registerAgent, send, useAgentServer } from '../support/agents.js';
import { backend } from '../support/server.js';
import { ApprovalsDocument, UpsertEntityDocument } from '../generated/graphql.js';
import { REMGRAPH_BIN } from '../support/process.js';

// The client commands (`remgraph chat`, `query`, `agents`, `sessions`, `approvals`) run as a user
// runs them: a separate process speaking GraphQL to a real server, through a pipe or through a
// pseudo-terminal (util-linux `script`), where chat asks its approval questions. The CLI is only a
// client, so one backend is enough: each command costs a process start, which PostgreSQL would repeat.

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The identity of a test user, as the CLI takes it from its environment. */
const identity = (user: Caller) => ({ REMGRAPH_USER: user.headers['x-user-id']!, REMGRAPH_TENANT: user.headers['x-tenant-id']! });

/** Runs `remgraph <args>` with stdin a pipe carrying `input` (closed at once when there is none). */
function cli(args: string[], env: Record<string, string>, input = '', onStdout?: (stdout: string) => void, onStderr?: (stderr: string) => void): Promise<Run> {
  const proc = spawn(process.execPath, [REMGRAPH_BIN, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (chunk) => {
    stdout += chunk;
    onStdout?.(stdout);
  });
  proc.stderr.on('data', (chunk) => {
    stderr += chunk;
    onStderr?.(stderr);
  });
  proc.stdin.end(input);
  return new Promise((resolve) => proc.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** `remgraph <args>` on a pseudo-terminal: what it shows (escape codes and carriage returns removed), and keys to type. */
function terminal(args: string[], env: Record<string, string>) {
  const command = [process.execPath, REMGRAPH_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const proc = spawn('script', ['-qfec', command, '/dev/null'], { cwd: root, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let raw = '';
  const screen = () => stripVTControlCharacters(raw).replace(/\r/g, '');
  const waiters = new Set<() => void>();
  proc.stdout.on('data', (chunk) => {
    raw += chunk;
    for (const check of waiters) check();
  });
  const exit = new Promise<number | null>((resolve) => proc.on('close', resolve));
  return {
    screen,
    type: (keys: string) => proc.stdin.write(keys),
    /** Resolves once the screen, from `from` on, matches. */
    waitFor(pattern: RegExp, from = 0, timeoutMs = 60_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`no ${pattern} on the terminal within ${timeoutMs} ms:\n${screen()}`));
        }, timeoutMs);
        const check = () => {
          if (!pattern.test(screen().slice(from))) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        waiters.add(check);
        check();
      });
    },
    async quit(): Promise<number | null> {
      proc.stdin.end('\x04');
      return exit;
    },
  };
}

/** A TCP relay to the server whose open connections can be cut, as a flaky network would. */
async function startRelay(target: string) {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return {
    url: target.replace(/\/\/[^/]+/, `//127.0.0.1:${(relay.address() as AddressInfo).port}`),
    cut: () => sockets.forEach((s) => s.destroy()),
    close: () => new Promise<void>((resolve) => relay.close(() => resolve())),
  };
}

describe.skipIf(backend() === 'postgres')('remgraph client commands', () => {
  const env = useAgentServer();
  const as = (user: Caller) => ({ REMGRAPH_URL: env.server.url, ...identity(user) });

  it('chat through a pipe: stdin is one message, the answer goes to stdout, exit 0 on COMPLETED', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Hello from the model.' });
    const run = await cli(['chat'], as(user), 'hi\n');
    expect(run, run.stderr).toMatchObject({ code: 0, stdout: 'Hello from the model.\n' });
    expect(run.stderr).toMatch(/^session \S+ \(continue it with --session \S+\)/);
    expect(env.fake.chatRequests.at(-1)?.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'hi' });

    // --model and --session: the demo model answers in the same session, which now holds both turns.
    const session = /^session (\S+)/.exec(run.stderr)![1]!;
    const demo = await cli(['chat', '--model', 'demo', '--session', session], as(user), 'and again');
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/^\[demo model: offline, not a real LLM\] You said: and again/);
    const shown = await cli(['sessions', 'show', session], as(user));
    expect(JSON.parse(shown.stdout)).toMatchObject({
      id: session,
      messageCount: 4,
      messages: [{ type: 'user', content: 'hi' }, { type: 'assistant' }, { content: 'and again' }, { type: 'assistant' }],
    });
  });

  it('chat shows a child agent’s stream on stderr, labelled, and prints the answer the parent passes on', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: boss\ndescription: You delegate.\ntools:\n  - name: ask_agent\n');
    await registerAgent(user, 'name: researcher\ndescription: You research.\n');
    const answer = 'Lisbon has 545,000 inhabitants.';
    env.fake.enqueue(
      { toolCalls: [{ id: 'ask', name: 'ask_agent', arguments: { agent_name: 'researcher', input_text: 'How big is Lisbon?' } }] },
      { text: answer },
      { text: answer },
    );
    const run = await cli(['chat', '--agent', 'boss'], as(user), 'How big is Lisbon?');
    expect(run, run.stderr).toMatchObject({ code: 0, stdout: `${answer}\n` });
    expect(run.stderr).toMatch(/→ ask_agent \{"agent_name":"researcher",/);
    expect(run.stderr).toContain(`researcher › ${answer}\n[researcher] completed\n← ask_agent`);
  });

  it('chat through a pipe whose reader stops early (| head) ends quietly with 141; the turn goes on and is stored', async () => {
    const user = newUser(env.server.url);
    const words = Array.from({ length: 30 }, (_, i) => `word${i} `);
    env.fake.enqueue({ text: words, delayMs: 20 });
    const proc = spawn(process.execPath, [REMGRAPH_BIN, 'chat'], { cwd: root, env: { ...process.env, ...as(user) }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (chunk) => (stderr += chunk));
    proc.stdin.end('hi');
    // Like `head -c 1`: the reader takes the first bytes of the answer and closes its end of the pipe.
    proc.stdout.once('data', () => proc.stdout.destroy());
    const code = await new Promise((resolve) => proc.on('close', resolve));
    expect(code, stderr).toBe(141);
    expect(stderr).not.toMatch(/EPIPE|\bat .*\(/);

    const [session] = (await cli(['sessions', 'list'], as(user))).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string });
    let messages: { type: string; content: string }[] = [];
    for (let tries = 0; tries < 100 && messages.length < 2; tries++) {
      messages = JSON.parse((await cli(['sessions', 'show', session!.id], as(user))).stdout).messages;
      if (messages.length < 2) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(messages).toMatchObject([
      { type: 'user', content: 'hi' },
      { type: 'assistant', content: words.join('') },
    ]);
  });

  it('chat through a pipe exits 1 with the error when the turn fails', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ status: 400, error: { message: 'bad request to the model' } });
    const run = await cli(['chat'], as(user), 'fail please');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/error MODEL_ERROR: .*bad request to the model/);
    expect(run.stderr).toMatch(/turn ERROR/);
  });

  it('chat through a pipe leaves an approval undecided, unless --approve-all says how; approvals list and decide', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'p1', name: 'action', arguments: { type: 'deploy' } }] });
    const refused = await cli(['chat', '--agent', 'careful'], as(user), 'deploy it');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/→ action \{"type":"deploy"\}/);
    expect(refused.stderr).toMatch(
      /remgraph: action needs approval \(\S+\) and stdin is not a terminal, so nothing was decided: the turn waits\. Decide with `remgraph approvals decide \S+ --approve`/,
    );

    const listed = await cli(['approvals', 'list', '--status', 'pending'], as(user));
    const rows = listed.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(rows).toMatchObject([{ status: 'PENDING', toolName: 'action', arguments: { type: 'deploy' }, agentPath: ['careful'] }]);

    env.fake.enqueue({ text: 'Not deployed.' });
    const decided = await cli(['approvals', 'decide', rows[0]!.id as string, '--reject', '--reason', 'not today'], as(user));
    expect(decided).toMatchObject({ code: 0, stdout: `REJECTED action (${rows[0]!.id}): not today\n` });
    const again = await cli(['approvals', 'decide', rows[0]!.id as string, '--approve'], as(user));
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^remgraph: ALREADY_DECIDED: /);
    await expect.poll(async () => (await user.data(ApprovalsDocument, { status: 'PENDING' })).approvals.edges).toEqual([]);

    env.fake.enqueue({ toolCalls: [{ id: 'p2', name: 'action', arguments: { type: 'ship' } }] }, { text: 'Shipped.' });
    const approved = await cli(['chat', '--agent', 'careful', '--approve-all'], as(user), 'ship it');
    expect(approved, approved.stderr).toMatchObject({ code: 0, stdout: 'Shipped.\n' });
    expect(approved.stderr).toMatch(/approved by \S+: --approve-all/);
    expect(approved.stderr).toMatch(/← action \{"recorded":true\}/);
  });

  it('chat on a terminal: the answer streams, a gated call asks "approve? [y/N]" and a reason, the turn completes', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 't1', name: 'action', arguments: { type: 'deploy' } }] }, { text: 'Deployed.' }, { text: 'Still here.' });
    const term = terminal(['chat', '--agent', 'careful'], as(user));
    await term.waitFor(/› $/);
    term.type('deploy it\r');
    await term.waitFor(/\? action needs approval: \{"type":"deploy"\}\napprove\? \[y\/N\] $/);
    term.type('y\r');
    await term.waitFor(/reason: $/);
    term.type('looks fine\r');
    await term.waitFor(/approved by \S+: looks fine\n[\s\S]*← action[\s\S]*Deployed\.\n› $/);
    const pending = (await user.data(ApprovalsDocument, {})).approvals.edges.map((e) => e.node);
    expect(pending).toMatchObject([{ status: 'APPROVED', reason: 'looks fine', toolName: 'action' }]);

    // The next line continues the same session.
    const from = term.screen().length;
    term.type('are you there?\r');
    await term.waitFor(/Still here\.\n› $/, from);
    expect(term.screen().slice(from)).not.toMatch(/^session /m);
    const history = env.fake.chatRequests
      .at(-1)!
      .body.messages.filter((m: { role: string }) => m.role === 'user')
      .map((m: { content: string }) => m.content);
    expect(history).toEqual(['deploy it', 'are you there?']);
    expect(await term.quit()).toBe(0);
  });

  it('chat resumes after a dropped connection from the last seq it saw, nothing lost or repeated', async () => {
    const user = newUser(env.server.url);
    const relay = await startRelay(env.server.url);
    try {
      const chunks = Array.from({ length: 15 }, (_, i) => `part${i} `);
      env.fake.enqueue({ text: chunks, delayMs: 100 });
      let cut = false;
      const run = await cli(['chat', '--url', relay.url], identity(user), 'tell me a story', (stdout) => {
        if (!cut && stdout.includes('part3')) {
          cut = true;
          relay.cut();
        }
      });
      expect(cut).toBe(true);
      expect(run.stderr).toMatch(/\[connection lost after seq \d+; resuming\]/);
      expect(run).toMatchObject({ code: 0, stdout: `${chunks.join('')}\n` });
    } finally {
      await relay.close();
    }
  });

  it('chat --debug prints every event with its seq and timings', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: ['one ', 'two'] });
    const run = await cli(['chat', '--debug'], as(user), 'count');
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split('\n').filter((l) => l.startsWith('#'));
    // Seq 1 is the model call's request (printed as its body, below).
    expect(lines.map((l) => /^#(\d+) \+\d+ms Δ\d+ms (\w+) /.exec(l)?.slice(1))).toEqual([
      ['2', 'ContentEvent'],
      ['3', 'ContentEvent'],
      ['4', 'FinalEvent'],
    ]);
    expect(run.stdout).toBe('one two\n');
  });

  it('chat --debug prints each model call’s exact request body as the call starts, before that call’s events', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: tooled\ndescription: You act.\ntools:\n  - name: action\n');
    env.fake.enqueue({ toolCalls: [{ name: 'action', arguments: { type: 'note' } }] }, { text: 'Noted.' });
    // The model does not answer its second call until the CLI has shown that call's request: the
    // body is printed live, not once the turn ends.
    const second = env.fake.holdNext('/v1/chat/completions', (r) => r.body.messages.some((m: { role: string }) => m.role === 'tool'));
    let shownWhileHeld = false;
    const run = await cli(['chat', '--debug', '--agent', 'tooled'], as(user), 'take a note', undefined, (stderr) => {
      if (shownWhileHeld || !/^model request #2 /m.test(stderr)) return;
      shownWhileHeld = true;
      second.release();
    });
    expect(run.code, run.stderr).toBe(0);
    expect(shownWhileHeld).toBe(true);
    const requests = [...run.stderr.matchAll(/^model request #(\d+) \(([^)]+)\):\n(\{\n[\s\S]*?\n\})$/gm)];
    expect(requests.map((m) => [m[1], m[2]])).toEqual([
      ['1', 'openai:fake-model'],
      ['2', 'openai:fake-model'],
    ]);
    // The bodies are what the model received.
    const bodies = requests.map((m) => JSON.parse(m[3]!));
    expect(bodies.map((b) => b.messages)).toEqual(env.fake.chatRequests.map((r) => r.body.messages));
    expect(bodies[0].messages.at(-1)).toEqual({ role: 'user', content: 'take a note' });
    // Each request comes before the events of its call.
    const order = run.stderr
      .split('\n')
      .map((l) => /^model request #(\d+)/.exec(l)?.[0] ?? /^#\d+ \+\d+ms Δ\d+ms (\w+) /.exec(l)?.[1])
      .filter(Boolean);
    expect(order).toEqual(['model request #1', 'ToolCallEvent', 'ActionEvent', 'ToolResultEvent', 'model request #2', 'ContentEvent', 'FinalEvent']);
    expect(run.stdout).toBe('Noted.\n');

    const usage = await cli(['usage', '--by', 'model'], as(user));
    expect(usage.code, usage.stderr).toBe(0);
    expect(JSON.parse(usage.stdout)).toMatchObject({ key: 'openai:fake-model', requests: 2 });
  });

  it('query prints JSON lines through a pipe and a table on a terminal; a bad query is one line and exit 1', async () => {
    const user = newUser(env.server.url);
    await user.data(UpsertEntityDocument, { input: { key: 'Sarah Chen', name: 'Sarah Chen', entityType: 'person', summary: 'Head of finance' } });
    const piped = await cli(['query', 'LOOKUP "sarah-chen"'], as(user));
    expect(piped.code, piped.stderr).toBe(0);
    expect(
      piped.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
    ).toMatchObject([{ key: 'sarah-chen', entityType: 'entities', name: 'Sarah Chen', summary: 'Head of finance' }]);

    const term = terminal(['query', 'LOOKUP "sarah-chen"'], as(user));
    await term.waitFor(/^key +entityType +score +name +summary\nsarah-chen +entities +1 +Sarah Chen +Head of finance\n/m);
    expect(await term.quit()).toBe(0);

    const bad = await cli(['query', 'LOOKUP "unterminated'], as(user));
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^remgraph: QUERY_SYNTAX: .+\n$/);
  });

  it('sessions list, agents list|show|validate|register and approvals list print JSON lines through a pipe', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'ok' });
    const chat = await cli(
      ['chat', '--user', user.headers['x-user-id']!, '--tenant', user.headers['x-tenant-id']!],
      { REMGRAPH_URL: env.server.url },
      'first session',
    );
    expect(chat.code, chat.stderr).toBe(0);
    const sessions = await cli(['sessions', 'list'], as(user));
    expect(
      sessions.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toMatchObject([{ name: 'first session' }]);

    const dir = await mkdtemp(join(tmpdir(), 'remgraph-cli-'));
    await writeFile(`${dir}/careful.yaml`, GATED_AGENT);
    await writeFile(`${dir}/broken.yaml`, 'name: broken\n');
    expect(await cli(['agents', 'validate', `${dir}/careful.yaml`], as(user))).toMatchObject({
      code: 0,
      stdout: `${dir}/careful.yaml: valid agent careful (tools: action*, register_metadata)\n`,
    });
    const broken = await cli(['agents', 'validate', `${dir}/broken.yaml`], as(user));
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/broken\.yaml: VALIDATION_FAILED: .*\n {2}\S+broken\.yaml:1:1 description: /);
    expect(await cli(['agents', 'register', `${dir}/careful.yaml`], as(user))).toMatchObject({ code: 0, stdout: 'registered careful version 1\n' });
    expect(await cli(['agents', 'register', `${dir}/careful.yaml`], as(user))).toMatchObject({ code: 0, stdout: 'careful is unchanged (version 1)\n' });

    const agents = (await cli(['agents', 'list'], as(user))).stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; tools: string[] });
    expect(agents.find((a) => a.name === 'careful')).toMatchObject({ origin: 'REGISTERED', version: 1, tools: ['action*', 'register_metadata'] });
    expect(agents.map((a) => a.name)).toContain('general');
    const shown = JSON.parse((await cli(['agents', 'show', 'careful'], as(user))).stdout);
    expect(shown).toMatchObject({ name: 'careful', source: GATED_AGENT });

    expect(await cli(['approvals', 'list'], as(user))).toMatchObject({ code: 0, stdout: '' });
  });

  it('replay asks a turn again with overrides and prints the diff: JSON through a pipe, lines on a terminal; bad overrides exit 1', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: observer\ndescription: You observe.\ntools:\n  - name: action\n');
    const observe = (level: number) => ({ toolCalls: [{ name: 'action', arguments: { type: 'observation', payload: { level } } }] });
    env.fake.enqueue(observe(1), { text: 'Level one.\nDone.' });
    const sent = await send(user, { content: 'Observe', agent: 'observer' });
    await followTurn(env.server.url, user, sent.turn.id);

    env.fake.enqueue(observe(2), { text: 'Level two.\nDone.' });
    const piped = await cli(['replay', sent.turn.id, '--model', 'openai:other-model', '--temperature', '0.2'], as(user));
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stderr).toMatch(/^replaying as turn \S+ in session \S+\n$/);
    expect(env.fake.chatRequests.at(-1)!.body).toMatchObject({ model: 'other-model', temperature: 0.2 });
    const diff = JSON.parse(piped.stdout);
    expect(diff).toMatchObject({
      textChanged: true,
      text: [
        { op: 'REMOVED', text: 'Level one.' },
        { op: 'ADDED', text: 'Level two.' },
        { op: 'SAME', text: 'Done.' },
      ],
      toolCalls: [{ op: 'CHANGED', name: 'action', changedArguments: ['payload'] }],
      a: { turn: { id: sent.turn.id, status: 'COMPLETED' }, modelCalls: 2, models: ['openai:fake-model', 'openai:fake-model'] },
      b: { turn: { status: 'COMPLETED', model: 'openai:other-model' }, modelCalls: 2 },
    });

    env.fake.enqueue(observe(1), { text: 'Level one.\nDone.' });
    const term = terminal(['replay', sent.turn.id, '--system-suffix', 'Be brief.'], { ...as(user), NO_COLOR: '1' });
    await term.waitFor(/^answer \(unchanged\):\n {2}Level one\.\n {2}Done\.\n\ntool calls:\n {2}action \{"type":"observation","payload":\{"level":1\}\}\n/m);
    expect(term.screen()).toMatch(/^b: turn \S+ COMPLETED {2}observer@1 {2}openai:fake-model {2}2 model call\(s\)/m);
    expect(await term.quit()).toBe(0);

    const bad = await cli(['replay', sent.turn.id, '--temperature', '3'], as(user));
    expect(bad).toMatchObject({ code: 1, stdout: '' });
    expect(bad.stderr).toMatch(/^remgraph: VALIDATION_FAILED: overrides\.temperature: /);
  });

  it('says clearly when no server answers, and exits 1', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/graphql`;
    await new Promise((resolve) => closed.close(resolve));
    for (const args of [['sessions', 'list'], ['chat']]) {
      const run = await cli([...args, '--url', url], {}, 'hi');
      expect(run).toMatchObject({
        code: 1,
        stdout: '',
        stderr: `remgraph: no server answered at ${url} (start one with \`npm start\`, or set --url / REMGRAPH_URL)\n`,
      });
    }
  });
});
