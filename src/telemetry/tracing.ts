import { context, INVALID_SPAN_CONTEXT, SpanStatusCode, trace, type Span, type SpanOptions } from '@opentelemetry/api';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { Config } from '../config/config.js';

/**
 * remgraph's tracer. Until `startTracing` registers a provider it is a no-op (tracing is off by
 * default), so instrumented code costs next to nothing and needs no tracer passed around.
 */
export const tracer = trace.getTracer('remgraph');

export interface Tracing {
  shutdown(): Promise<void>;
}

/** Whether `startTracing` registered a provider: work done only for spans can be skipped while it is not. */
let tracingOn = false;
export function isTracing(): boolean {
  return tracingOn;
}

/**
 * Registers the process's tracer provider when tracing is configured (or an exporter is handed in,
 * as tests do with an in-memory one). The OTLP exporter reads the standard OTEL_EXPORTER_OTLP_*
 * variables itself (endpoint, headers, timeout). One provider per process: a second call while one
 * is registered changes nothing. The SDK is loaded only then: with tracing off (the default) a
 * start does not pay for loading it.
 */
export async function startTracing(settings: Config['telemetry'], exporter?: SpanExporter): Promise<Tracing> {
  if (!exporter && !settings.exporter) return { shutdown: async () => {} };
  const [
    { AsyncLocalStorageContextManager },
    { resourceFromAttributes },
    { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, TracerProvider },
    { ATTR_SERVICE_NAME },
  ] = await Promise.all([
    import('@opentelemetry/context-async-hooks'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const chosen =
    exporter ?? (settings.exporter === 'otlp' ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter() : new ConsoleSpanExporter());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName }),
    // Handed-in exporters (tests) see each span as it ends; real ones get batches.
    spanProcessors: [exporter ? new SimpleSpanProcessor({ exporter: chosen }) : new BatchSpanProcessor({ exporter: chosen })],
  });
  if (!trace.setGlobalTracerProvider(provider)) return { shutdown: () => provider.shutdown() };
  tracingOn = true;
  return {
    shutdown: async () => {
      tracingOn = false;
      await provider.shutdown();
      trace.disable();
      context.disable();
    },
  };
}

/** What `work` gets while tracing is off: a span whose methods do nothing. */
const NO_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Runs `work` in a new active span: children started inside it (awaits included) nest under it.
 * A thrown error is recorded on the span and rethrown; the span ends either way. While tracing is
 * off, `work` just runs: no span, context or extra promise on a turn's path.
 */
export function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  if (!tracingOn) return work(NO_SPAN);
  return tracer.startActiveSpan(name, options, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The active span's ids, or nulls when tracing is off. */
export function activeSpanIds(): { traceId: string | null; spanId: string | null } {
  const ids = trace.getActiveSpan()?.spanContext();
  return ids && trace.isSpanContextValid(ids) ? { traceId: ids.traceId, spanId: ids.spanId } : { traceId: null, spanId: null };
}
