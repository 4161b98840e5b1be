import { createContext } from "preact";
import { useContext, useEffect, useState } from "preact/hooks";
import { watch } from "./blocking";
import { api, type Query } from "./client";
import { onTokenChange } from "./token";

/** The datacenter the views ask about; "" is the agent's own (no `?dc=`). */
export const Datacenter = createContext<string>("");

export interface Live<T> {
  data: T | undefined;
  error: unknown;
  /** X-Consul-Index of the data shown, which views may use to refresh what does not block. */
  index: number | undefined;
  /** The API said ACLs left out some results (X-Consul-Results-Filtered-By-ACLs). */
  filtered?: boolean;
}

const filteredBy = (headers: Headers) => headers.get("X-Consul-Results-Filtered-By-ACLs") === "true";

/** Bumps when the token changes, so every request made with the old one is made again. */
function useTokenGeneration(): number {
  const [generation, setGeneration] = useState(0);
  useEffect(() => onTokenChange(() => setGeneration((g) => g + 1)), []);
  return generation;
}

/**
 * Live data from a blocking endpoint: the first answer at once, then each change as the API reports it.
 * `path` null means nothing to watch yet. The request ends when the component unmounts or its inputs change.
 */
export function useBlocking<T>(
  path: string | null,
  query: Query = {},
  wait = "5m",
  options: { allowNotFound?: boolean } = {},
): Live<T> {
  const dc = useContext(Datacenter);
  const generation = useTokenGeneration();
  const [state, setState] = useState<Live<T>>({ data: undefined, error: undefined, index: undefined });
  const key = JSON.stringify([path, query, dc, wait, generation, options.allowNotFound]);
  useEffect(() => {
    setState({ data: undefined, error: undefined, index: undefined });
    if (path === null) return;
    const controller = new AbortController();
    void watch<T>({
      signal: controller.signal,
      fetch: (index, signal) =>
        api<T>(path, {
          query: { ...query, dc: dc || undefined, index, wait: index ? wait : undefined },
          signal,
          allowNotFound: options.allowNotFound,
        }),
      onData: (data, index) => setState({ data, error: undefined, index }),
      onError: (error) => setState((s) => ({ ...s, error })),
    });
    return () => controller.abort();
  }, [key]);
  return state;
}

/**
 * Data from an endpoint that does not block (agent, operator): fetched again whenever `refresh` changes,
 * which a view ties to a blocking query's index rather than to a timer.
 */
export function useFetch<T>(path: string | null, query: Query = {}, refresh: unknown = 0): Live<T> {
  const dc = useContext(Datacenter);
  const generation = useTokenGeneration();
  const [state, setState] = useState<Live<T>>({ data: undefined, error: undefined, index: undefined });
  const key = JSON.stringify([path, query, dc, generation]);
  // Another resource (or token, or datacenter) shows nothing of the previous one; a refresh keeps what is shown.
  useEffect(() => setState({ data: undefined, error: undefined, index: undefined }), [key]);
  useEffect(() => {
    if (path === null) return;
    const controller = new AbortController();
    api<T>(path, { query: { ...query, dc: dc || undefined }, signal: controller.signal }).then(
      (res) =>
        setState({ data: res.data, error: undefined, index: res.index, filtered: filteredBy(res.headers) }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState((s) => ({ ...s, error }));
      },
    );
    return () => controller.abort();
  }, [key, refresh]);
  return state;
}
