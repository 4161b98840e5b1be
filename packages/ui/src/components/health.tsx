import type { Counts, Status } from "../lib/health";
import { normalize } from "../lib/health";
import { Select } from "./list";

const SYMBOL: Record<Status, string> = { passing: "✓", warning: "!", critical: "✕" };

/** A status as text with a symbol, so it reads without colour. */
export function HealthBadge({ status, text }: { status: string; text?: string }) {
  const s = normalize(status);
  return (
    <span class={`badge badge-${s}`}>
      <span aria-hidden="true">{SYMBOL[s]}</span> {text ?? status}
    </span>
  );
}

export function HealthCounts({ counts }: { counts: Counts }) {
  return (
    <span class="counts">
      {(["passing", "warning", "critical"] as const).map((s) => (
        <span key={s} class={`count count-${s}${counts[s] === 0 ? " count-zero" : ""}`} title={s}>
          <span aria-hidden="true">{SYMBOL[s]}</span> {counts[s]}
          <span class="sr-only"> {s}</span>
        </span>
      ))}
    </span>
  );
}

/** The "Health" select of the list views: any, or one status. */
export function HealthFilter({ value, onChange }: { value: string; onChange(status: string): void }) {
  return (
    <Select
      label="Health"
      value={value}
      onChange={onChange}
      options={[
        ["", "Any"],
        ["passing", "Passing"],
        ["warning", "Warning"],
        ["critical", "Critical"],
      ]}
    />
  );
}
