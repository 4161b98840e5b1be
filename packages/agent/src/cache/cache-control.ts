/** The request directives Consul's agent cache honours (agent/http.go parseCacheControl). */
export interface CacheControl {
  /** 0: not given. */
  readonly maxAgeMs: number;
  readonly staleIfErrorMs: number;
  readonly mustRevalidate: boolean;
}

export const INVALID_CACHE_CONTROL = "Invalid Cache-Control header.";

/** Parses the header; undefined when a directive's seconds are not an integer (Consul: 400). */
export function parseCacheControl(header: string | null): CacheControl | undefined {
  let maxAgeMs = 0;
  let staleIfErrorMs = 0;
  let mustRevalidate = false;
  for (const raw of (header ?? "").toLowerCase().split(",")) {
    const d = raw.trim();
    if (d === "must-revalidate") mustRevalidate = true;
    const seconds = (prefix: string) => {
      const text = d.slice(prefix.length);
      return /^[0-9]+$/.test(text) ? Number(text) * 1000 : undefined;
    };
    if (d.startsWith("max-age=")) {
      const ms = seconds("max-age=");
      if (ms === undefined) return undefined;
      maxAgeMs = ms;
      // max-age=0 means stale at once, which an unset max-age (0 too) cannot say.
      if (ms === 0) mustRevalidate = true;
    } else if (d.startsWith("stale-if-error=")) {
      const ms = seconds("stale-if-error=");
      if (ms === undefined) return undefined;
      staleIfErrorMs = ms;
    }
  }
  return { maxAgeMs, staleIfErrorMs, mustRevalidate };
}
