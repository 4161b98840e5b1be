/** Case-insensitive match of every whitespace-separated word of `search` in any of `fields`. */
export function matches(search: string, fields: readonly (string | undefined)[]): boolean {
  const words = search
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "");
  if (words.length === 0) return true;
  const text = fields
    .filter((f) => f !== undefined)
    .join("\n")
    .toLowerCase();
  return words.every((w) => text.includes(w));
}

/** The slice of `items` on page `page` (0-based, clamped) and the page count. */
export function pageOf<T>(
  items: readonly T[],
  page: number,
  size: number,
): { rows: T[]; page: number; pages: number } {
  const pages = Math.max(1, Math.ceil(items.length / size));
  const p = Math.min(Math.max(0, page), pages - 1);
  return { rows: items.slice(p * size, (p + 1) * size), page: p, pages };
}
