import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface ServerProcess {
  url: string;
  proc: ChildProcess;
  output: () => string;
  /** Sends a signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Every process started here that is still running: killed when this process exits, so no test leaves a server behind. */
const live = new Set<ChildProcess>();
process.on('exit', () => {
  for (const proc of live) proc.kill('SIGKILL');
});

/**
 * How the CLI is run: the compiled dist/ (as `npm start`; rebuilt first when its sources changed), or
 * its TypeScript through tsx (as `npm run dev`), which costs a process start about 3 s more CPU.
 */
export type CliEntry = 'tsx' | 'compiled';

/** `remgraph` as a user runs it (with node, from the checkout's root): the compiled CLI. */
export const REMGRAPH_BIN = 'bin/remgraph.js';

/** Environment for a child process: a value replaces the variable, `undefined` removes it. */
export type ChildEnv = Record<string, string | undefined>;

/**
 * Runs the CLI (`remgraph <args>`) as a separate process, the way an operator would; from this
 * checkout, or from the one in `cwd` (a benchmark comparing two builds); under `launcher` (a command
 * that runs node, e.g. `unshare --pid --fork`) when given.
 */
export function runCli(
  args: string[],
  env: ChildEnv,
  entry: CliEntry = 'compiled',
  cwd = root,
  launcher: string[] = [],
): { proc: ChildProcess; exit: Promise<{ code: number | null; stdout: string; stderr: string }> } {
  // REMGRAPH_CHILD_NODE_ARGS passes extra flags to node, e.g. `--cpu-prof` when profiling a benchmark.
  const nodeArgs = (process.env.REMGRAPH_CHILD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const main = entry === 'tsx' ? ['--import', 'tsx', 'src/main.ts'] : [REMGRAPH_BIN];
  const [command, ...commandArgs] = [...launcher, process.execPath, ...nodeArgs, ...main, ...args];
  const proc = spawn(command!, commandArgs, {
    cwd,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (chunk) => (stdout += chunk));
  proc.stderr!.on('data', (chunk) => (stderr += chunk));
  live.add(proc);
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    proc.on('exit', (code) => {
      live.delete(proc);
      resolve({ code, stdout, stderr });
    }),
  );
  return { proc, exit };
}

/** Starts `remgraph serve [args]` in its own process on a random port and waits until it listens. */
export async function spawnServer(
  env: ChildEnv,
  timeoutMs = 120_000,
  entry: CliEntry = 'compiled',
  args: string[] = [],
  cwd = root,
  launcher: string[] = [],
): Promise<ServerProcess> {
  const { proc, exit } = runCli(['serve', ...args], { PORT: '0', HOST: '127.0.0.1', ...env }, entry, cwd, launcher);
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk;
      const match = /listening on (http:\/\/\S+\/graphql)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exit.then(({ code }) => reject(new Error(`server exited with ${code} before listening:\n${output}`)));
  });
  return {
    url,
    proc,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill(signal);
      return (await exit).code;
    },
  };
}
