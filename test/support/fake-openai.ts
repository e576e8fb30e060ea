/**
 * A fake OpenAI-compatible HTTP server for tests.
 *
 * It speaks the real wire protocol (SSE `chat.completion.chunk` streams, `chat.completion` objects,
 * OpenAI error bodies, embeddings including the SDK's default base64 encoding) so the product can be
 * pointed at it with nothing but a base URL. Chat replies are scripted per test and consumed FIFO.
 *
 *   const fake = await startFakeOpenAI();
 *   fake.enqueue({ text: 'Hello there' }, { toolCalls: [{ name: 'search', arguments: '{"q":"x"}' }] });
 *   new OpenAI({ baseURL: fake.url, apiKey: 'test' });
 *   ...
 *   await fake.close();
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleepFor } from 'node:timers/promises';

// ---------------------------------------------------------------------------------------------
// Script types
// ---------------------------------------------------------------------------------------------

interface ScriptUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
}

interface ScriptPacing {
  /** Wait this long between streamed chunks (non-streaming replies: once, before replying). */
  delayMs?: number;
  /** Send the first chunk, then keep the connection open until the client aborts or the fake closes. */
  hang?: boolean;
  /** Like `hang`, but stall after this many chunks (0 = headers only). Wins over `hang`. */
  stallAfterChunks?: number;
  /**
   * Replace each content delta, as it is written, with the wall-clock time of the write
   * (`performance.timeOrigin + performance.now()`, ms) and a space: for latency benchmarks.
   */
  stampContent?: boolean;
}

/** A string is split into word-ish chunks; an array gives the content delta of each chunk verbatim. */
type ScriptedText = string | string[];

/** Reasoning streamed before the answer, as OpenAI-compatible servers do (DeepSeek, vLLM: `reasoning_content`; OpenRouter, Ollama: `reasoning`). */
interface ScriptedReasoning {
  reasoning?: ScriptedText;
  reasoningField?: 'reasoning_content' | 'reasoning';
}

interface TextScript extends ScriptPacing, ScriptedReasoning {
  text: ScriptedText;
  usage?: ScriptUsage;
  /** Streams no usage chunk even when asked to (servers that ignore `stream_options.include_usage`). */
  withoutUsage?: boolean;
  finishReason?: 'stop' | 'length';
}

interface ScriptedToolCall {
  /** Defaults to a deterministic `call_<response>_<index>`. */
  id?: string;
  name: string;
  /** Sent verbatim, so it may deliberately be invalid JSON; objects are JSON.stringify'd. */
  arguments: string | Record<string, unknown>;
}

interface ToolCallScript extends ScriptPacing, ScriptedReasoning {
  toolCalls: ScriptedToolCall[];
  /** Optional assistant content streamed before the tool calls. */
  text?: ScriptedText;
  usage?: ScriptUsage;
}

/** Structured output: the JSON.stringify of `json` is streamed as content. */
interface JsonScript extends ScriptPacing {
  json: unknown;
  usage?: ScriptUsage;
  finishReason?: 'stop' | 'length';
}

interface ScriptedError {
  message: string;
  type?: string;
  code?: string | null;
  param?: string | null;
}

export interface ErrorScript {
  status: number;
  error?: ScriptedError;
  headers?: Record<string, string>;
  delayMs?: number;
  /** A body in the provider's own shape instead of OpenAI's `{error}` (Gemini answers `[{error}]`). */
  body?: unknown;
}

/**
 * A provider's stream replayed as it is: each object is sent as one `data: <json>` event, each
 * string verbatim (comment lines, `data:` without a space, CRLF line ends, `data: [DONE]`).
 * Nothing is added: no `[DONE]`, no usage chunk, whatever the request asked for.
 */
export interface RawStreamScript {
  stream: (Record<string, unknown> | string)[];
  headers?: Record<string, string>;
}

export type DynamicScript = (request: RecordedRequest) => Script | Promise<Script>;

export type Script = TextScript | ToolCallScript | JsonScript | ErrorScript | RawStreamScript | DynamicScript;

export interface RecordedRequest {
  method: string;
  /** Pathname without the query string, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body (the raw string when it is not JSON, undefined when empty); `any` so tests can dig in. */
  body: any;
  /** The body exactly as received. */
  raw: string;
  /** Resolves once the response's connection is done with: answered in full, or closed by the client. */
  closed: Promise<void>;
}

interface Hold {
  match: (request: RecordedRequest) => boolean;
  released: Promise<void>;
  reach: (request: RecordedRequest) => void;
}

const FAKE_MODEL = 'fake-model';
const DEFAULT_EMBEDDING_DIMENSIONS = 1536;

const CHAT_PATH = '/v1/chat/completions';
const EMBEDDINGS_PATH = '/v1/embeddings';

// ---------------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------------

export async function startFakeOpenAI(): Promise<FakeOpenAI> {
  const fake = new FakeOpenAI();
  await fake.listen();
  return fake;
}

export class FakeOpenAI {
  /** Every request received, in arrival order (all paths). */
  readonly requests: RecordedRequest[] = [];

  private readonly server: Server;
  private readonly scripts: Script[] = [];
  private readonly failures = new Map<string, ErrorScript[]>();
  private readonly holds = new Map<string, Hold[]>();
  private readonly models = new Set<string>([FAKE_MODEL]);
  private readonly waiters = new Set<() => void>();
  private responseCount = 0;
  private baseUrl = '';

  constructor() {
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        if (!res.headersSent) sendError(res, 500, { message: `fake-openai crashed: ${String(err)}` });
        else res.destroy();
      });
    });
  }

  /** Base URL including `/v1`, ready for `new OpenAI({ baseURL })`. */
  get url(): string {
    return this.baseUrl;
  }

  /** Chat completion requests only (the usual thing to assert on). */
  get chatRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.path === CHAT_PATH);
  }

  /** Number of scripted chat replies not consumed yet. */
  get pending(): number {
    return this.scripts.length;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}/v1`;
  }

  /** Queue replies for successive POST /v1/chat/completions requests (FIFO). */
  enqueue(...scripts: Script[]): this {
    this.scripts.push(...scripts);
    return this;
  }

  /** Make the next request to `path` (e.g. `/v1/embeddings` or `embeddings`) fail with an error reply. */
  failNext(path: string, failure: number | ErrorScript): this {
    const key = normalisePath(path);
    const queue = this.failures.get(key) ?? [];
    queue.push(typeof failure === 'number' ? { status: failure } : failure);
    this.failures.set(key, queue);
    return this;
  }

  /**
   * Leave the next request to `path` (that `match` accepts) unanswered until `release()`: a client
   * caught in the middle of its work (a re-embed between two batches). `reached` tells when it came.
   */
  holdNext(path: string, match: (request: RecordedRequest) => boolean = () => true): { reached: Promise<RecordedRequest>; release: () => void } {
    let release!: () => void;
    let reach!: (request: RecordedRequest) => void;
    const hold: Hold = { match, released: new Promise<void>((resolve) => (release = resolve)), reach: (r) => reach(r) };
    const reached = new Promise<RecordedRequest>((resolve) => (reach = resolve));
    const key = normalisePath(path);
    this.holds.set(key, [...(this.holds.get(key) ?? []), hold]);
    return { reached, release };
  }

  /** Forget recorded requests, queued scripts, queued failures and holds not reached. */
  reset(): void {
    this.requests.length = 0;
    this.scripts.length = 0;
    this.failures.clear();
    this.holds.clear();
  }

  /** Resolve once at least `n` requests (optionally only those to `path`) have been recorded. */
  async waitForRequests(n: number, timeoutMs = 5000, path?: string): Promise<RecordedRequest[]> {
    const matching = () => (path ? this.requests.filter((r) => r.path === normalisePath(path)) : this.requests);
    if (matching().length >= n) return matching();
    return new Promise((resolve, reject) => {
      const check = () => {
        if (matching().length < n) return;
        done();
        resolve(matching());
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`fake-openai: expected ${n} request(s)${path ? ` to ${path}` : ''}, got ${matching().length} within ${timeoutMs}ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
    });
  }

  /** Stops listening and drops open connections, including hanging streams. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeAllConnections();
    await closed;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const closed = new Promise<void>((resolve) => res.once('close', () => resolve()));
    const request = await this.record(req, closed);
    res.setHeader('x-request-id', `req_fake${++this.responseCount}`);
    const holds = this.holds.get(request.path) ?? [];
    const hold = holds.find((h) => h.match(request));
    if (hold) {
      holds.splice(holds.indexOf(hold), 1);
      hold.reach(request);
      await hold.released;
    }

    const failure = this.failures.get(request.path)?.shift();
    if (failure) return sendScriptedError(res, failure);

    if (req.method === 'POST' && request.path === CHAT_PATH) return this.handleChat(request, res);
    if (req.method === 'POST' && request.path === EMBEDDINGS_PATH) return this.handleEmbeddings(request, res);
    if (req.method === 'GET' && request.path.startsWith('/v1/models')) return this.handleModels(request, res);
    sendError(res, 404, { message: `fake-openai: no route for ${req.method} ${request.path}` });
  }

  private async record(req: IncomingMessage, closed: Promise<void>): Promise<RecordedRequest> {
    const raw = await readBody(req);
    const request: RecordedRequest = {
      method: req.method ?? 'GET',
      path: new URL(req.url ?? '/', 'http://fake').pathname,
      headers: req.headers,
      body: parseBody(raw),
      raw,
      closed,
    };
    const model: unknown = request.body?.model;
    if (typeof model === 'string') this.models.add(model);
    this.requests.push(request);
    for (const check of [...this.waiters]) check();
    return request;
  }

  private async handleChat(request: RecordedRequest, res: ServerResponse): Promise<void> {
    const body = request.body;
    if (typeof body?.model !== 'string') return sendError(res, 400, { message: 'you must provide a model parameter', param: 'model' });
    if (!Array.isArray(body.messages)) return sendError(res, 400, { message: "'messages' is a required property", param: 'messages' });

    const next = this.scripts.shift();
    if (!next) {
      // x-should-retry stops the SDK from retrying, so a missing script fails the test at once.
      return sendError(
        res,
        500,
        { message: `fake-openai has no scripted reply for POST ${CHAT_PATH} (request #${this.chatRequests.length}); call fake.enqueue()` },
        { 'x-should-retry': 'false' },
      );
    }
    const script = await resolveScript(next, request);
    if (isErrorScript(script)) return sendScriptedError(res, script);
    if ('stream' in script) return replayStream(res, script);

    const reply = buildReply(script, this.responseCount, body);
    const signal = closeSignal(res);
    if (body.stream === true) return streamReply(res, reply, body.stream_options?.include_usage === true, signal);
    return sendCompletion(res, reply, signal);
  }

  private handleEmbeddings(request: RecordedRequest, res: ServerResponse): void {
    const body = request.body;
    const inputs = embeddingInputs(body?.input);
    if (!inputs) return sendError(res, 400, { message: "'input' must be a string or an array", param: 'input' });
    const dimensions: unknown = body.dimensions ?? DEFAULT_EMBEDDING_DIMENSIONS;
    if (!Number.isInteger(dimensions) || (dimensions as number) < 1) {
      return sendError(res, 400, { message: "'dimensions' must be a positive integer", param: 'dimensions' });
    }
    const base64 = body.encoding_format === 'base64';
    const tokens = inputs.reduce((sum, text) => sum + countWords(text), 0);
    sendJson(res, 200, {
      object: 'list',
      data: inputs.map((text, index) => {
        const vector = fakeEmbedding(text, dimensions as number);
        return { object: 'embedding', index, embedding: base64 ? toBase64Float32(vector) : vector };
      }),
      model: typeof body.model === 'string' ? body.model : FAKE_MODEL,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  private handleModels(request: RecordedRequest, res: ServerResponse): void {
    const toModel = (id: string) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'fake-openai' });
    const id = decodeURIComponent(request.path.slice('/v1/models/'.length));
    if (request.path === '/v1/models' || request.path === '/v1/models/') {
      return sendJson(res, 200, { object: 'list', data: [...this.models].map(toModel) });
    }
    if (this.models.has(id)) return sendJson(res, 200, toModel(id));
    sendError(res, 404, { message: `The model '${id}' does not exist`, code: 'model_not_found' });
  }
}

// ---------------------------------------------------------------------------------------------
// Chat replies
// ---------------------------------------------------------------------------------------------

type FinishReason = 'stop' | 'length' | 'tool_calls';

interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

interface Delta {
  role?: 'assistant';
  content?: string | null;
  reasoning_content?: string;
  reasoning?: string;
  refusal?: null;
  tool_calls?: ToolCallDelta[];
}

interface WireToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/** Everything needed to answer one chat request, streamed or not. */
interface Reply {
  id: string;
  created: number;
  model: string;
  deltas: Delta[];
  content: string | null;
  toolCalls: WireToolCall[];
  finishReason: FinishReason;
  usage: ReturnType<typeof wireUsage>;
  streamsUsage: boolean;
  pacing: ScriptPacing;
}

type StaticScript = Exclude<Script, DynamicScript>;

async function resolveScript(script: Script, request: RecordedRequest): Promise<StaticScript> {
  let current = script;
  while (typeof current === 'function') current = await current(request);
  return current;
}

function isErrorScript(script: StaticScript): script is ErrorScript {
  return 'status' in script;
}

function buildReply(script: Exclude<StaticScript, ErrorScript | RawStreamScript>, sequence: number, body: any): Reply {
  const contentChunks = contentChunksOf(script);
  const toolCalls =
    'toolCalls' in script
      ? script.toolCalls.map((call, index) => ({
          id: call.id ?? `call_${sequence}_${index}`,
          type: 'function' as const,
          function: { name: call.name, arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments) },
        }))
      : [];
  const deltas = [...reasoningDeltas(script), ...contentDeltas(contentChunks, toolCalls.length > 0), ...toolCallDeltas(toolCalls)];
  if (!deltas[0]!.role) deltas[0] = { role: 'assistant', content: null, refusal: null, ...deltas[0] };

  const generatedChunks = deltas.filter((d) => d.content || d.reasoning_content || d.reasoning || d.tool_calls?.some((t) => t.function.arguments)).length;
  const usage = script.usage ?? { prompt_tokens: estimatePromptTokens(body.messages), completion_tokens: Math.max(1, generatedChunks) };
  const content = contentChunks === null ? null : contentChunks.join('');
  return {
    id: `chatcmpl-fake${String(sequence).padStart(6, '0')}`,
    created: Math.floor(Date.now() / 1000),
    model: body.model,
    deltas,
    content: toolCalls.length > 0 && !content ? null : (content ?? ''),
    toolCalls,
    finishReason: 'toolCalls' in script ? 'tool_calls' : (script.finishReason ?? 'stop'),
    usage: wireUsage(usage),
    streamsUsage: !('withoutUsage' in script && script.withoutUsage),
    pacing: script,
  };
}

function contentChunksOf(script: TextScript | ToolCallScript | JsonScript): string[] | null {
  if ('json' in script) return splitFragments(JSON.stringify(script.json) ?? 'null');
  if (script.text === undefined) return null;
  return typeof script.text === 'string' ? splitWords(script.text) : script.text;
}

function reasoningDeltas(script: TextScript | ToolCallScript | JsonScript): Delta[] {
  if (!('reasoning' in script) || script.reasoning === undefined) return [];
  const field = script.reasoningField ?? 'reasoning_content';
  const chunks = typeof script.reasoning === 'string' ? splitWords(script.reasoning) : script.reasoning;
  return chunks.map((chunk) => ({ [field]: chunk }));
}

/** Text replies open with `{role, content: ''}`; a tool-call-only reply puts the role on its first tool chunk. */
function contentDeltas(chunks: string[] | null, hasToolCalls: boolean): Delta[] {
  if (chunks === null && hasToolCalls) return [];
  return [{ role: 'assistant', content: '', refusal: null }, ...(chunks ?? []).map((content) => ({ content }))];
}

/** Per call: a header chunk (index, id, type, name, empty arguments), then index + argument fragments. */
function toolCallDeltas(calls: WireToolCall[]): Delta[] {
  return calls.flatMap((call, index) => [
    { tool_calls: [{ index, id: call.id, type: 'function' as const, function: { name: call.function.name, arguments: '' } }] },
    ...splitFragments(call.function.arguments).map((fragment) => ({ tool_calls: [{ index, function: { arguments: fragment } }] })),
  ]);
}

function wireUsage(usage: ScriptUsage) {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.prompt_tokens + usage.completion_tokens,
    prompt_tokens_details: { cached_tokens: usage.cached_tokens ?? 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoning_tokens ?? 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

async function streamReply(res: ServerResponse, reply: Reply, includeUsage: boolean, signal: AbortSignal): Promise<void> {
  const envelope = (choices: unknown[], usage?: Reply['usage']) => ({
    id: reply.id,
    object: 'chat.completion.chunk',
    created: reply.created,
    model: reply.model,
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
    choices,
    ...(includeUsage && reply.streamsUsage ? { usage: usage ?? null } : {}),
  });
  const choice = (delta: Delta, finishReason: FinishReason | null) => ({ index: 0, delta, logprobs: null, finish_reason: finishReason });
  const chunks = [...reply.deltas.map((d) => envelope([choice(d, null)])), envelope([choice({}, reply.finishReason)])];
  if (includeUsage && reply.streamsUsage) chunks.push(envelope([], reply.usage));

  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  res.flushHeaders();

  const stallAt = reply.pacing.stallAfterChunks ?? (reply.pacing.hang ? 1 : Infinity);
  for (const [i, chunk] of chunks.entries()) {
    if (i >= stallAt) return holdOpen(signal);
    if (i > 0 && !(await pause(reply.pacing.delayMs, signal))) return;
    if (signal.aborted) return;
    const delta = (chunk.choices[0] as { delta?: Delta } | undefined)?.delta;
    if (reply.pacing.stampContent && delta?.content) delta.content = `${(performance.timeOrigin + performance.now()).toFixed(3)} `;
    res.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  if (Number.isFinite(stallAt)) return holdOpen(signal);
  res.end('data: [DONE]\n\n');
}

function replayStream(res: ServerResponse, script: RawStreamScript): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...script.headers });
  for (const event of script.stream) res.write(typeof event === 'string' ? event : `data: ${JSON.stringify(event)}\n\n`);
  res.end();
}

async function sendCompletion(res: ServerResponse, reply: Reply, signal: AbortSignal): Promise<void> {
  if (reply.pacing.hang || reply.pacing.stallAfterChunks !== undefined) return holdOpen(signal);
  if (!(await pause(reply.pacing.delayMs, signal))) return;
  sendJson(res, 200, {
    id: reply.id,
    object: 'chat.completion',
    created: reply.created,
    model: reply.model,
    service_tier: 'default',
    system_fingerprint: 'fp_fake',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.content,
          refusal: null,
          annotations: [],
          ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: reply.finishReason,
      },
    ],
    usage: reply.usage,
  });
}

// ---------------------------------------------------------------------------------------------
// Embeddings
// ---------------------------------------------------------------------------------------------

/**
 * Deterministic, L2-normalised bag-of-words embedding: every word contributes a fixed pseudo-random
 * vector, so texts sharing words are measurably closer (useful for vector-search tests) and the same
 * text always maps to the same vector. Exported so tests can compute expected vectors.
 */
export function fakeEmbedding(text: string, dimensions = DEFAULT_EMBEDDING_DIMENSIONS): number[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [text];
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of words) {
    const next = prng(createHash('sha256').update(word).digest().readUInt32LE(0));
    for (let i = 0; i < dimensions; i++) vector[i]! += next() * 2 - 1;
  }
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0)) || 1;
  return vector.map((v) => v / norm);
}

/** mulberry32: tiny seeded PRNG returning floats in [0, 1). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The SDK asks for base64 by default: little-endian float32 bytes. */
function toBase64Float32(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}

/** Accepts string, string[], token array, or array of token arrays (tokens are hashed as words). */
function embeddingInputs(input: unknown): string[] | null {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input) || input.length === 0) return null;
  if (input.every((item) => typeof item === 'number')) return [input.join(' ')];
  if (input.every((item) => typeof item === 'string')) return input as string[];
  if (input.every((item) => Array.isArray(item))) return (input as unknown[][]).map((tokens) => tokens.join(' '));
  return null;
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** Word-ish chunks that keep their leading whitespace, so `chunks.join('') === text`. */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [];
}

/** Up to four roughly equal fragments, like the token-sized pieces the real API streams. */
function splitFragments(text: string): string[] {
  const size = Math.max(1, Math.ceil(text.length / 4));
  const fragments: string[] = [];
  for (let i = 0; i < text.length; i += size) fragments.push(text.slice(i, i + size));
  return fragments;
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** Words across every string in the messages; role strings count too, roughly like per-message overhead. */
function estimatePromptTokens(messages: unknown): number {
  const strings: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') strings.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect(messages);
  return Math.max(1, countWords(strings.join(' ')));
}

function normalisePath(path: string): string {
  return path.startsWith('/') ? path : `/v1/${path}`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function parseBody(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Aborts when the response closes: client disconnect, fake closing, or normal end. */
function closeSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => controller.abort());
  return controller.signal;
}

/** Resolves false if the connection closed while waiting. */
async function pause(ms: number | undefined, signal: AbortSignal): Promise<boolean> {
  if (!ms) return !signal.aborted;
  try {
    await sleepFor(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

async function holdOpen(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return;
  await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

function sendError(res: ServerResponse, status: number, error: ScriptedError, headers: Record<string, string> = {}): void {
  const defaults = defaultErrorFields(status);
  sendJson(
    res,
    status,
    { error: { message: error.message, type: error.type ?? defaults.type, param: error.param ?? null, code: error.code ?? defaults.code } },
    headers,
  );
}

async function sendScriptedError(res: ServerResponse, script: ErrorScript): Promise<void> {
  if (!(await pause(script.delayMs, closeSignal(res)))) return;
  if (script.body !== undefined) return sendJson(res, script.status, script.body, script.headers);
  sendError(res, script.status, script.error ?? { message: `fake-openai scripted error ${script.status}` }, script.headers);
}

/** Type/code pairs as the real API sends them for common statuses. */
function defaultErrorFields(status: number): { type: string; code: string | null } {
  if (status === 401) return { type: 'invalid_request_error', code: 'invalid_api_key' };
  if (status === 429) return { type: 'requests', code: 'rate_limit_exceeded' };
  if (status >= 500) return { type: 'server_error', code: null };
  return { type: 'invalid_request_error', code: null };
}
