import type { ChatMessage, ResponseFormat, ToolCall, ToolSpec, Usage } from './chat-model.js';

/** Counts tokens the way a model's provider does (or as near as is known). */
export interface TokenCounter {
  /** The BPE encoding used: `o200k_base`, `cl100k_base` (`utf-8 bytes` for TOKEN_CEILING). */
  readonly encoding: string;
  text(text: string): number;
  /** What a message costs in a chat request: its text, tool calls and the per-message framing. */
  message(message: ChatMessage): number;
  /**
   * Tool specs and response format as sent (the provider injects them into the prompt). An object
   * is counted once: it must not change afterwards (an agent's specs are built once per version).
   */
  json(value: unknown): number;
}

type Encoding = 'o200k_base' | 'cl100k_base';

// OpenAI's chat format frames every message with a few tokens (role, separators).
const PER_MESSAGE = 3;

/**
 * The encoding of an OpenAI model. Models of other providers behind OpenAI-compatible endpoints
 * (Llama, Qwen, Claude, Mistral...) have their own vocabularies that no JavaScript package covers
 * together: they are counted with o200k_base, which lands within a few tenths of their counts for
 * English text. Budgets are limits we choose, so a near count is what matters.
 */
export function encodingFor(model: string): Encoding {
  const name = model.slice(model.indexOf(':') + 1).toLowerCase();
  if (/^(gpt-4(?!o|\.[1-9])|gpt-3\.5|text-embedding-(ada|3))/.test(name)) return 'cl100k_base';
  return 'o200k_base';
}

const loaded = new Map<Encoding, Promise<TokenCounter>>();
/** Longer texts are counted each time, so the remembered ones stay small in memory. */
const REMEMBER_UP_TO_CHARS = 64 * 1024;
/** Characters of remembered text per generation and encoding (two generations are kept). */
const REMEMBERED_CHARS = 2 * 1024 * 1024;
/** What a remembered count costs besides its text (the map's entry), in characters. */
const ENTRY_CHARS = 32;

/** The encodings loaded so far (each costs about 20 MB of heap for the life of the process). */
export const encodingsLoaded = (): string[] => [...loaded.keys()];

/** A counter for `model` (`provider:model` or a bare model name); the encoding loads once, on first use. */
export function tokenCounterFor(model: string): Promise<TokenCounter> {
  const encoding = encodingFor(model);
  let counter = loaded.get(encoding);
  if (!counter) {
    counter = load(encoding);
    loaded.set(encoding, counter);
  }
  return counter;
}

async function load(encoding: Encoding): Promise<TokenCounter> {
  const { countTokens } = encoding === 'cl100k_base' ? await import('gpt-tokenizer/encoding/cl100k_base') : await import('gpt-tokenizer/encoding/o200k_base');
  // Special-token text in user content (e.g. "<|endoftext|>") is counted as plain text, not refused.
  const count = (value: string) => countTokens(value, { disallowedSpecial: new Set() });
  // System prompts, tool specs and a session's history are the same texts turn after turn: a long
  // session's turn counts some hundred messages to fill its history budget, nearly all counted by
  // the turn before it, and a lookup costs a fraction of encoding them again.
  const remembered = new RememberedCounts(REMEMBERED_CHARS);
  const text = (value: string) => {
    if (!value) return 0;
    if (value.length > REMEMBER_UP_TO_CHARS) return count(value);
    let tokens = remembered.get(value);
    if (tokens === undefined) remembered.set(value, (tokens = count(value)));
    return tokens;
  };
  return counterOf(encoding, text);
}

/**
 * Token counts by text, in two generations: lookups go to the current one, then to the previous
 * (moving the text into the current one); once the current one holds `limit` characters (its
 * texts plus ENTRY_CHARS each) it becomes the previous one and the old previous one is forgotten.
 * What turns keep counting stays; memory stays under twice `limit` characters.
 */
class RememberedCounts {
  private current = new Map<string, number>();
  private previous = new Map<string, number>();
  private chars = 0;

  constructor(private readonly limit: number) {}

  get(text: string): number | undefined {
    const tokens = this.current.get(text);
    if (tokens !== undefined) return tokens;
    const earlier = this.previous.get(text);
    if (earlier !== undefined) this.set(text, earlier);
    return earlier;
  }

  set(text: string, tokens: number): void {
    const chars = text.length + ENTRY_CHARS;
    if (this.chars + chars > this.limit) {
      this.previous = this.current;
      this.current = new Map();
      this.chars = 0;
    }
    this.current.set(text, tokens);
    this.chars += chars;
  }
}

/**
 * The most tokens anything can cost with either encoding, counted without one: both are byte-level
 * BPE, where every token stands for at least one byte of the text's UTF-8 form. A request whose
 * ceiling fits a budget fits it however it is tokenized, so the tokenizer (about 20 MB of heap,
 * which every full garbage collection walks) is loaded only for requests near a budget.
 */
export const TOKEN_CEILING: TokenCounter = counterOf('utf-8 bytes', (value) => Buffer.byteLength(value));

/** A counter of messages and JSON values over `text`, the count of one text. */
function counterOf(encoding: string, text: (value: string) => number): TokenCounter {
  const counted = new WeakMap<object, number>();
  return {
    encoding,
    text,
    message(message) {
      let tokens = PER_MESSAGE + text(message.content ?? '');
      if (message.role === 'assistant') for (const call of message.toolCalls ?? []) tokens += PER_MESSAGE + text(call.name) + text(call.arguments);
      return tokens;
    },
    json(value) {
      if (value === undefined) return 0;
      if (typeof value !== 'object' || value === null) return text(JSON.stringify(value));
      let tokens = counted.get(value);
      if (tokens === undefined) counted.set(value, (tokens = text(JSON.stringify(value))));
      return tokens;
    },
  };
}

/** What the fixed part of a request costs: everything but the history. */
export function requestOverhead(
  counter: TokenCounter,
  parts: { messages: ChatMessage[]; tools?: readonly ToolSpec[]; responseFormat?: ResponseFormat },
): number {
  // Every reply is primed with a few tokens too.
  return PER_MESSAGE + parts.messages.reduce((sum, m) => sum + counter.message(m), 0) + counter.json(parts.tools) + counter.json(parts.responseFormat);
}

/**
 * Our own count of a model call the provider reported no usage for (cut short by a cancel or an
 * error, or a server that sends none): the request as sent, and the output streamed so far.
 */
export async function estimateUsage(
  model: string,
  request: { messages: ChatMessage[]; tools?: readonly ToolSpec[]; responseFormat?: ResponseFormat },
  output: { text: string; toolCalls?: ToolCall[] },
): Promise<Usage> {
  const counter = await tokenCounterFor(model);
  const calls = (output.toolCalls ?? []).reduce((sum, call) => sum + counter.text(call.name) + counter.text(call.arguments), 0);
  return { inputTokens: requestOverhead(counter, request), outputTokens: counter.text(output.text) + calls };
}
