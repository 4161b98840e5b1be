// Markdown tables and number formatting shared by the benchmark reports.

/** A GitHub-flavoured markdown table; numeric-looking columns are right-aligned. */
export function markdownTable(header: string[], rows: string[][]): string {
  const numeric = header.map(
    (_, i) => rows.length > 0 && rows.every((r) => /^[\d.,x×%-]+\S*$/.test(r[i] ?? "")),
  );
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const rule = header.map((_, i) => (numeric[i] ? "---:" : "---"));
  return [line(header), line(rule), ...rows.map((r) => line(header.map((_, i) => r[i] ?? "")))].join("\n");
}

/** Operations per second with thousands separators, no decimals. */
export function formatRate(opsPerSec: number): string {
  return Number.isFinite(opsPerSec) ? Math.round(opsPerSec).toLocaleString("en-US") : "-";
}

/** Milliseconds with precision that suits the magnitude. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "-";
  return ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
}

/** a / b as "1.23x", "-" when either side is missing. */
export function formatRatio(a: number, b: number): string {
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${(a / b).toFixed(2)}x` : "-";
}

export function formatMB(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}
