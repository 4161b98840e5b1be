import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type Location, matchRoute, type Params, parseHash } from "./lib/route-match";

/** What every view is given: the decoded params of its pattern and the hash's query. */
export interface ViewProps {
  params: Params;
  query: URLSearchParams;
}

export type ViewModule = { default: ComponentType<ViewProps> };

export interface RouteDef {
  /** `/services/:name`, `/kv/*key`. */
  pattern: string;
  /** The navigation entry's text; routes without one are reached by links only. */
  nav?: string;
  /** The view, loaded on first use (each view is its own chunk). */
  load(): Promise<ViewModule>;
}

export function useLocation(): Location {
  const [location, setLocation] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const update = () => setLocation(parseHash(window.location.hash));
    window.addEventListener("hashchange", update);
    return () => window.removeEventListener("hashchange", update);
  }, []);
  return location;
}

export function resolve(routes: readonly RouteDef[], location: Location) {
  for (const route of routes) {
    const params = matchRoute(route.pattern, location.path);
    if (params) return { route, params };
  }
  return undefined;
}

const loaded = new Map<RouteDef["load"], ComponentType<ViewProps>>();

/** Renders a route's view once its chunk has loaded. */
export function RouteView({ route, params, query }: { route: RouteDef } & ViewProps) {
  const [View, setView] = useState<ComponentType<ViewProps> | undefined>(() => loaded.get(route.load));
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    const known = loaded.get(route.load);
    if (known) {
      setView(() => known);
      return;
    }
    setView(undefined);
    let live = true;
    route.load().then(
      (m) => {
        loaded.set(route.load, m.default);
        if (live) setView(() => m.default);
      },
      (err: unknown) => live && setError(err),
    );
    return () => {
      live = false;
    };
  }, [route]);
  if (error) return <p role="alert">This view failed to load; reload the page.</p>;
  if (!View) return <p class="loading">Loading…</p>;
  return <View params={params} query={query} />;
}
