import { z } from 'zod';
import { bool } from './env-values.js';

/** OpenTelemetry's standard variables: tracing is on when an exporter is chosen or an OTLP endpoint is set. */
const telemetryVariables = z.object({
  OTEL_SDK_DISABLED: bool.default(false).describe('`true` turns tracing off whatever else is set'),
  OTEL_TRACES_EXPORTER: z
    .enum(['otlp', 'console', 'none'])
    .optional()
    .meta({ description: '`otlp`, `console` (spans on stdout) or `none`', shownDefault: '`otlp` when an endpoint is set, else off' }),
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .url()
    .optional()
    .describe(
      'an OTLP/HTTP collector: turns tracing on (the exporter also reads `OTEL_EXPORTER_OTLP_HEADERS`, `…_TIMEOUT` and the other standard OTLP variables)',
    ),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z
    .url()
    .optional()
    .describe('the collector’s traces endpoint, in place of `OTEL_EXPORTER_OTLP_ENDPOINT`: turns tracing on'),
  OTEL_SERVICE_NAME: z.string().min(1).default('remgraph').describe('`service.name` of the spans'),
});

/** Where spans go: nowhere (the default), an OTLP/HTTP collector, or the console. */
export const telemetrySettings = telemetryVariables.transform((e) => ({ exporter: tracesExporter(e), serviceName: e.OTEL_SERVICE_NAME }));

function tracesExporter(e: z.output<typeof telemetryVariables>): 'otlp' | 'console' | null {
  if (e.OTEL_SDK_DISABLED || e.OTEL_TRACES_EXPORTER === 'none') return null;
  if (e.OTEL_TRACES_EXPORTER) return e.OTEL_TRACES_EXPORTER;
  return e.OTEL_EXPORTER_OTLP_ENDPOINT || e.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ? 'otlp' : null;
}
