// The standing of a span (docs/FORMATS.md "OpenTelemetry traces"): a span that failed (status
// error, or an exception it recorded) headlines "failed", as a claim whose signature fails
// headlines that; the core decides it, this only says it. Pure.

/** The standing the core gives a failed span. */
export const SPAN_FAILED = "failed";

/** The headline of a standing that is not a claim's (a span's), or null. */
export function spanStandingLine(standing: string | null | undefined): string | null {
  return standing === SPAN_FAILED ? "✗ Failed: it reported an error" : null;
}
