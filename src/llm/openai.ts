import { setTimeout as sleep } from 'node:timers/promises';
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { finishReason, isRecord, reasoningOf, ToolCallAssembler, toRequestBody, usesMaxCompletionTokens } from './openai-wire.js';
import { ModelError, RateLimitedError } from '../errors.js';
import { abortError, type ChatModel, type ChatRequest, type ChatStreamPart, type ReasoningReplay, type Usage } from './chat-model.js';
import { outputToolParts, refusedBefore, refusesJsonSchema, rememberRefusal, withOutputTool, type StructuredOutputMode } from './output-tool.js';
import { SseDecoder } from './sse.js';
import { Watchdog } from './watchdog.js';

export interface OpenAIModelOptions {
  /** Configured provider name, e.g. "openai", "ollama"; used in ids and error messages. */
  provider: string;
  model: string;
  baseUrl: string;
  /** null for keyless endpoints (Ollama, vLLM): no Authorization header is sent. */
  apiKey: string | null;
  /** Env var that holds the key, named in the hint of a 401 error. */
  apiKeyEnv?: string;
  /** Longest wait for the response to start, and between two streamed chunks. */
  timeoutMs: number;
  /** Retries after the first attempt, only while nothing has been streamed to the caller. */
  maxRetries: number;
  retryBaseMs: number;
  /**
   * How a json_schema response format is asked for: `json_schema` (the default) switches to `tool`
   * by itself after the provider refuses it, for this base URL and model, until the process ends.
   */
  structuredOutput?: StructuredOutputMode;
  /** Which reasoning is sent back; `never` unless given. */
  reasoning?: ReasoningReplay;
}

/** Tells the SDK that a string body is JSON already. */
const JSON_BODY = { 'content-type': 'application/json' };

/** A retry-after longer than this is not waited for: the caller gets RateLimitedError at once. */
const MAX_RETRY_AFTER_MS = 60_000;
const MAX_BACKOFF_MS = 30_000;

/** A ChatModel over the streaming chat completions API of any OpenAI-compatible endpoint. */
export function createOpenAIModel(options: OpenAIModelOptions): ChatModel {
  return new OpenAIChatModel(options);
}

/** Why one attempt failed, in the terms the retry loop and the final error need. */
interface Failure {
  kind: 'http' | 'timeout' | 'connection' | 'protocol';
  status?: number;
  message: string;
  retryable: boolean;
  retryAfterMs?: number;
}

class OpenAIChatModel implements ChatModel {
  readonly isDemo = false;
  readonly provider: string;
  readonly model: string;
  readonly id: string;
  private readonly client: OpenAI;

  constructor(private readonly options: OpenAIModelOptions) {
    this.provider = options.provider;
    this.model = options.model;
    this.id = `${options.provider}:${options.model}`;
    this.client = new OpenAI({
      baseURL: options.baseUrl,
      // The SDK would otherwise read OPENAI_API_KEY / OPENAI_ORG_ID from the environment and send
      // OpenAI credentials to whatever endpoint this provider points at.
      apiKey: options.apiKey ?? 'unused',
      organization: null,
      project: null,
      webhookSecret: null,
      defaultHeaders: options.apiKey === null ? { Authorization: null } : undefined,
      timeout: options.timeoutMs,
      maxRetries: 0,
      fetch: fetchWithObjectErrors,
    });
  }

  /** Where a refusal of json_schema is remembered: the same model name elsewhere may support it. */
  private get endpoint(): string {
    return `${this.options.baseUrl} ${this.model}`;
  }

  private usesOutputTool(request: ChatRequest): boolean {
    return request.responseFormat?.type === 'json_schema' && (this.options.structuredOutput === 'tool' || refusedBefore(this.endpoint));
  }

  /** Serialised once per shape: these are the bytes the provider receives (the SDK sends a string as it is). */
  private serialize(request: ChatRequest, outputTool: boolean): string {
    const body = toRequestBody(this.model, request, {
      maxCompletionTokens: usesMaxCompletionTokens(this.options.baseUrl),
      reasoning: this.options.reasoning ?? 'never',
    });
    const format = request.responseFormat;
    return JSON.stringify(outputTool && format?.type === 'json_schema' ? withOutputTool(body, format) : body);
  }

  /**
   * One generator for the request, its retries and its chunks: each chunk passes through no other
   * layer on its way to the caller. Retries happen only while nothing has been yielded.
   */
  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    const { signal } = request;
    let outputTool = this.usesOutputTool(request);
    let serialized = this.serialize(request, outputTool);
    yield { type: 'request', body: serialized };
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortError(signal);
      const watchdog = new Watchdog(this.options.timeoutMs, signal);
      let yielded = false;
      let drained = false;
      let failure: Failure;
      try {
        watchdog.arm();
        // The raw body, read here rather than through the SDK's stream: see SseDecoder.
        // chat.completions.create(body) with the body already serialised.
        const response = await this.client
          .post('/chat/completions', { body: serialized, headers: JSON_BODY, stream: true, signal: watchdog.signal, maxRetries: 0 })
          .asResponse();
        if (!response.body) throw new Error('the response has no body');
        const sse = new SseDecoder();
        const calls = new ToolCallAssembler();
        let finish: string | null = null;
        let usage: Usage | null = null;
        let ended = false;
        // The output tool's reply is only known once complete: text beside it is not the answer.
        let held = '';
        const reader = response.body.getReader();
        watchdog.arm();
        // The watchdog's abort (the caller's, a stall, or a consumer that stopped) ends the read.
        for (let read = await reader.read(); !read.done; read = await reader.read()) {
          for (const data of sse.push(read.value)) {
            // What follows `[DONE]` is read to the end of the body but not used.
            if (ended || (ended = data.startsWith('[DONE]'))) continue;
            const chunk = JSON.parse(data) as ChatCompletionChunk & { error?: unknown };
            // An error event inside a 200 stream, as the SDK reports it.
            if (chunk.error) throw new APIError(undefined, chunk.error as object, undefined, response.headers);
            // Groq reports usage under `x_groq` on the last chunk.
            const reported = chunk.usage ?? (chunk as { x_groq?: { usage?: ChatCompletionChunk['usage'] } }).x_groq?.usage;
            if (reported) usage = { inputTokens: reported.prompt_tokens ?? 0, outputTokens: reported.completion_tokens ?? 0 };
            const choice = chunk.choices?.[0];
            if (!choice) continue;
            for (const delta of choice.delta?.tool_calls ?? []) calls.add(delta);
            if (choice.finish_reason) finish = choice.finish_reason;
            const reasoning = reasoningOf(choice.delta);
            if (reasoning) {
              watchdog.pause();
              yielded = true;
              yield { type: 'reasoning-delta', delta: reasoning };
            }
            if (choice.delta?.content && outputTool) {
              held += choice.delta.content;
            } else if (choice.delta?.content) {
              // A slow consumer must not count against the provider's time.
              watchdog.pause();
              yielded = true;
              yield { type: 'text-delta', delta: choice.delta.content };
            }
          }
          watchdog.arm();
        }
        drained = true;
        watchdog.pause();
        if (signal?.aborted) throw abortError(signal);
        if (watchdog.fired) throw new TimedOut();
        if (finish === null) throw new StreamIncomplete();
        const complete = calls.complete();
        yielded = true;
        const reason = finishReason(finish, complete.length > 0);
        if (outputTool) {
          const answer = outputToolParts(held, complete, reason);
          yield* answer.parts;
          yield { type: 'finish', reason: answer.reason, usage };
          return;
        }
        for (const call of complete) yield { type: 'tool-call', call };
        yield { type: 'finish', reason, usage };
        return;
      } catch (error) {
        if (signal?.aborted) throw abortError(signal);
        failure = describeFailure(watchdog.fired ? new TimedOut() : error);
      } finally {
        watchdog.dispose(drained);
      }
      if (!yielded && !outputTool && request.responseFormat?.type === 'json_schema' && refusesJsonSchema(failure.status, failure.message)) {
        rememberRefusal(this.endpoint);
        outputTool = true;
        serialized = this.serialize(request, true);
        yield { type: 'request', body: serialized };
        // The same request in another shape: not a retry.
        attempt = 0;
        continue;
      }
      const delay = this.retryDelay(attempt, failure);
      // Text already handed to the caller cannot be taken back, so a retry would duplicate it.
      if (yielded || !failure.retryable || attempt > this.options.maxRetries || delay === null) {
        throw this.toError(failure, attempt, yielded);
      }
      try {
        await sleep(delay, undefined, { signal });
      } catch {
        throw abortError(signal);
      }
    }
  }

  /** Milliseconds to wait before the next attempt, or null when the provider asks for too long. */
  private retryDelay(attempt: number, failure: Failure): number | null {
    if (failure.retryAfterMs !== undefined) return failure.retryAfterMs > MAX_RETRY_AFTER_MS ? null : failure.retryAfterMs;
    const exponential = Math.min(MAX_BACKOFF_MS, this.options.retryBaseMs * 2 ** (attempt - 1));
    return Math.round(exponential * (0.75 + Math.random() * 0.25));
  }

  private toError(failure: Failure, attempts: number, yielded: boolean): Error {
    const { provider, baseUrl, timeoutMs, apiKeyEnv } = this.options;
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    const broken = yielded ? ' (the stream broke after output had started, so it was not retried)' : '';
    const prefix = `Model ${this.id} failed`;
    if (failure.kind === 'http' && failure.status === 429 && failure.retryable) {
      return new RateLimitedError(`${prefix}: rate limited by ${provider} (HTTP 429)${tries}: ${failure.message}`, failure.retryAfterMs);
    }
    let message: string;
    switch (failure.kind) {
      case 'http': {
        const hint = failure.status === 401 ? ` (check ${apiKeyEnv ?? `the API key of provider ${provider}`})` : '';
        message = `${prefix}: ${provider} returned HTTP ${failure.status}${tries}: ${failure.message}${hint}`;
        break;
      }
      case 'timeout':
        message = `${prefix}: no response from ${provider} within ${timeoutMs} ms${tries}`;
        break;
      case 'connection':
        message = `${prefix}: connection to ${provider} at ${baseUrl} failed${tries}: ${failure.message}`;
        break;
      case 'protocol':
        message = `${prefix}: unusable response from ${provider}: ${failure.message}`;
        break;
    }
    return new ModelError(message + broken, failure.status, failure.retryable);
  }
}

class TimedOut extends Error {}
class StreamIncomplete extends Error {
  override message = 'the stream ended before the model finished';
}

function describeFailure(error: unknown): Failure {
  if (error instanceof TimedOut || error instanceof APIConnectionTimeoutError) {
    return { kind: 'timeout', message: 'timed out', retryable: true };
  }
  if (error instanceof StreamIncomplete) return { kind: 'connection', message: error.message, retryable: true };
  if (error instanceof APIConnectionError) {
    return { kind: 'connection', message: causeMessage(error), retryable: true };
  }
  if (error instanceof APIError) {
    const message = providerMessage(error);
    // An error event inside a 200 stream has no status: the provider gave up, retrying rarely helps.
    if (error.status === undefined) return { kind: 'protocol', message, retryable: false };
    const status = error.status;
    const shouldRetry = error.headers?.get('x-should-retry');
    const quotaExhausted = status === 429 && error.code === 'insufficient_quota';
    const retryable = shouldRetry === 'true' || (shouldRetry !== 'false' && !quotaExhausted && (status === 408 || status === 429 || status >= 500));
    return { kind: 'http', status, message, retryable, retryAfterMs: retryAfter(error.headers) };
  }
  if (isNetworkError(error)) return { kind: 'connection', message: causeMessage(error as Error), retryable: true };
  return { kind: 'protocol', message: error instanceof Error ? error.message : String(error), retryable: false };
}

/** The provider's own message from the error body, without the SDK's "500 " prefix. */
function providerMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  if (typeof body?.message === 'string' && body.message) return body.message;
  return error.message;
}

function causeMessage(error: Error): string {
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/** undici reports a dropped connection as TypeError("terminated" / "fetch failed") or a coded socket error. */
function isNetworkError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e.name === 'TypeError' && /^(terminated|fetch failed)$/.test(e.message)) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^(E[A-Z]+|UND_ERR_\w+)$/.test(code)) return true;
  }
  return false;
}

/** `retry-after-ms` (OpenAI) wins over `retry-after` (seconds or an HTTP date). */
function retryAfter(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/**
 * fetch, with an error body that is a JSON array (Gemini's OpenAI layer answers `[{"error": …}]`)
 * unwrapped to its object, the only shape the SDK reads a provider's message from.
 */
async function fetchWithObjectErrors(url: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  if (response.ok || !response.headers.get('content-type')?.includes('json')) return response;
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (!(Array.isArray(body) && body.length === 1 && isRecord(body[0]))) return new Response(text, response);
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body[0]), { status: response.status, statusText: response.statusText, headers });
}
