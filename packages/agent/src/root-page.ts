import type { AgentConfig } from "./config/index.js";
import type { Fetch } from "./metrics/instrument.js";

const TEXT = { "Content-Type": "text/plain; charset=utf-8" };

/**
 * The agent's answer at `/` of its HTTP port, as Consul's index handler gives it, so an HTTP health check
 * pointed at an agent passes: with the UI on a 301 to the UI's path, otherwise a 200 naming the agent.
 * Cairn has no web UI, so the UI path itself answers 200 saying so (Consul would serve the UI there).
 * Every other request goes on to `fetch`.
 */
export function withRootPage(fetch: Fetch, config: Pick<AgentConfig, "ui" | "nodeName">): Fetch {
  const uiPath = config.ui.contentPath;
  return (request, env) => {
    const path = pathOf(request.url);
    if (path === "/") {
      if (config.ui.enabled) return new Response(null, { status: 301, headers: { Location: uiPath } });
      return new Response(
        `Cairn Agent (${config.nodeName}): UI disabled. Cairn speaks Consul's HTTP API under /v1/ and has no web UI.`,
        { status: 200, headers: TEXT },
      );
    }
    if (config.ui.enabled && (path === uiPath || `${path}/` === uiPath)) {
      return new Response(
        `Cairn Agent (${config.nodeName}): the web UI is not part of Cairn; its HTTP API is under /v1/.`,
        { status: 200, headers: TEXT },
      );
    }
    return fetch(request, env);
  };
}

function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const end = url.slice(start).search(/[?#]/);
  return end < 0 ? url.slice(start) : url.slice(start, start + end);
}
