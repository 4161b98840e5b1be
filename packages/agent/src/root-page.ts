import type { AgentConfig } from "./config/index.js";
import type { Fetch } from "./metrics/instrument.js";
import { builtUiDir, normalizeContentPath, serveUi } from "./ui-assets.js";

const TEXT = { "Content-Type": "text/plain; charset=utf-8" };

/**
 * The agent's answer at `/` of its HTTP port, as Consul's index handler gives it, so an HTTP health check
 * pointed at an agent passes: with the UI on a 301 to the UI's path, otherwise a 200 naming the agent.
 * With the UI on, its content path serves the web UI (`ui_config.dir`, or packages/ui's build).
 * Every other request goes on to `fetch`.
 */
export function withRootPage(fetch: Fetch, config: Pick<AgentConfig, "ui" | "nodeName">): Fetch {
  const uiPath = normalizeContentPath(config.ui.contentPath);
  const dir = config.ui.enabled ? (config.ui.dir ?? builtUiDir()) : "";
  return (request, env) => {
    const path = pathOf(request.url);
    if (path === "/") {
      if (config.ui.enabled) return new Response(null, { status: 301, headers: { Location: uiPath } });
      return new Response(
        `Cairn Agent (${config.nodeName}): UI disabled. Cairn speaks Consul's HTTP API under /v1/; start the agent with -ui for its web UI.`,
        { status: 200, headers: TEXT },
      );
    }
    if (config.ui.enabled) {
      if (`${path}/` === uiPath) return new Response(null, { status: 301, headers: { Location: uiPath } });
      if (path.startsWith(uiPath)) return serveUi(dir, uiPath, path, request.method);
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
