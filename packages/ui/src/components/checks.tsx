import type { Check } from "../lib/health";
import { HealthBadge } from "./health";

/** Checks with status, notes and output; outputs are text (never markup). */
export function CheckList({ checks }: { checks: readonly Check[] }) {
  if (checks.length === 0) return <p class="empty">No checks.</p>;
  return (
    <ul class="checks" aria-label="Checks">
      {checks.map((c) => (
        <li key={`${c.Node}/${c.CheckID}`}>
          <HealthBadge status={c.Status} /> <strong>{c.Name}</strong>{" "}
          <span class="meta">
            {c.CheckID}
            {c.ServiceID === "" ? " (node check)" : ""}
          </span>
          {c.Notes ? <p class="meta">{c.Notes}</p> : null}
          {c.Output ? <pre>{c.Output}</pre> : null}
        </li>
      ))}
    </ul>
  );
}
