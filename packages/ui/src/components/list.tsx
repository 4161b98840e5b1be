import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { pageOf } from "../lib/filter";

interface PagedListProps<T> {
  items: readonly T[];
  /** The list's accessible name. */
  label: string;
  keyOf(item: T): string;
  render(item: T): ComponentChildren;
  pageSize?: number;
  empty?: ComponentChildren;
}

/**
 * A list shown a page at a time, so 5,000 rows cost what 100 do. The page stays put while live updates
 * arrive and goes back to the first when the filtered list shrinks below it.
 */
export function PagedList<T>({ items, label, keyOf, render, pageSize = 100, empty }: PagedListProps<T>) {
  const [page, setPage] = useState(0);
  const { rows, page: shown, pages } = pageOf(items, page, pageSize);
  useEffect(() => {
    if (shown !== page) setPage(shown);
  }, [shown, page]);
  if (items.length === 0) return <p class="empty">{empty ?? "Nothing to show."}</p>;
  const first = shown * pageSize + 1;
  const last = Math.min(items.length, first + pageSize - 1);
  return (
    <div class="paged">
      <ul class="rows" aria-label={label}>
        {rows.map((item) => (
          <li key={keyOf(item)} class="row">
            {render(item)}
          </li>
        ))}
      </ul>
      {pages > 1 ? (
        <nav class="pager" aria-label={`${label} pages`}>
          <button type="button" onClick={() => setPage(shown - 1)} disabled={shown === 0}>
            Previous
          </button>
          <span aria-live="polite">
            {first}–{last} of {items.length}
          </span>
          <button type="button" onClick={() => setPage(shown + 1)} disabled={shown >= pages - 1}>
            Next
          </button>
        </nav>
      ) : (
        <p class="pager-count">{items.length === 1 ? "1 item" : `${items.length} items`}</p>
      )}
    </div>
  );
}

interface SearchProps {
  value: string;
  onInput(value: string): void;
  label: string;
}

export function SearchBox({ value, onInput, label }: SearchProps) {
  return (
    <label class="search">
      <span class="sr-only">{label}</span>
      <input
        type="search"
        placeholder={label}
        value={value}
        onInput={(e) => onInput((e.currentTarget as HTMLInputElement).value)}
      />
    </label>
  );
}

interface SelectProps {
  label: string;
  value: string;
  options: readonly (readonly [value: string, text: string])[];
  onChange(value: string): void;
}

export function Select({ label, value, options, onChange }: SelectProps) {
  return (
    <label class="select">
      <span>{label}</span>
      <select value={value} onChange={(e) => onChange((e.currentTarget as HTMLSelectElement).value)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="loading" aria-busy="true">
      Loading {what}…
    </p>
  );
}

/** Name/value pairs (service meta, addresses), each shown as text. */
export function Pairs({ pairs, label }: { pairs: Readonly<Record<string, string>>; label: string }) {
  const entries = Object.entries(pairs);
  if (entries.length === 0) return null;
  return (
    <dl class="pairs" aria-label={label}>
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
