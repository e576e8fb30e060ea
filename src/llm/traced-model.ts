import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ChatModel, ChatRequest, ChatStreamPart } from './chat-model.js';
import { isAbortError } from './chat-model.js';
import { isTracing, tracer } from '../telemetry/tracing.js';

/**
 * A model whose every call is a `chat <model>` span with the GenAI semantic conventions: provider,
 * requested model, token usage and finish reason. The span covers the whole stream. While tracing
 * is off a call is the model's own stream: no extra generator between its chunks and the caller.
 */
export function tracedModel(model: ChatModel): ChatModel {
  return {
    provider: model.provider,
    model: model.model,
    id: model.id,
    isDemo: model.isDemo,
    stream: (request) => (isTracing() ? tracedStream(model, request) : model.stream(request)),
  };
}

async function* tracedStream(model: ChatModel, request: ChatRequest): AsyncGenerator<ChatStreamPart> {
  const span = tracer.startSpan(`chat ${model.model}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': model.provider,
      'gen_ai.request.model': model.model,
      ...(request.temperature !== undefined ? { 'gen_ai.request.temperature': request.temperature } : {}),
      ...(request.maxTokens !== undefined ? { 'gen_ai.request.max_tokens': request.maxTokens } : {}),
    },
  });
  try {
    for await (const part of model.stream(request)) {
      if (part.type === 'finish') {
        span.setAttributes({
          'gen_ai.response.finish_reasons': [part.reason],
          ...(part.usage ? { 'gen_ai.usage.input_tokens': part.usage.inputTokens, 'gen_ai.usage.output_tokens': part.usage.outputTokens } : {}),
        });
      }
      yield part;
    }
  } catch (error) {
    if (!isAbortError(error)) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    }
    throw error;
  } finally {
    span.end();
  }
}
