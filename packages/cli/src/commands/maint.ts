// `cairn maint`, as `consul maint`: shows, enables or disables node or service maintenance mode.
import { boolFlag, stringFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";
import { asString, field, isObject } from "../json.js";

const NODE_CHECK = "_node_maintenance";
const SERVICE_PREFIX = "_service_maintenance:";

export const maintCommand: Command = defineCommand({
  synopsis: "Controls node or service maintenance mode",
  usage: `
Usage: cairn maint [options]

  Places a node or service into maintenance mode. During maintenance mode,
  the node or service will be excluded from all queries through the DNS
  or API interfaces, effectively taking it out of the pool of available
  nodes. This is done by registering an additional critical health check.

  When enabling maintenance mode for a node or service, you may optionally
  specify a reason string. This string will appear in the "Notes" field
  of the critical health check which is registered against the node or
  service. If no reason is provided, a default value will be used.

  Maintenance mode is persistent, and will be restored in the event of an
  agent restart. It is therefore required to disable maintenance mode on
  a given node or service before it will be placed back into the pool.

  If no arguments are given, the agent's maintenance status will be shown.`,
  http: true,
  flags: {
    enable: boolFlag("Enable maintenance mode."),
    disable: boolFlag("Disable maintenance mode."),
    reason: stringFlag("Text describing the maintenance reason."),
    service: stringFlag("Control maintenance mode for a specific service ID."),
  },
  async run({ values: f }, { io, client }) {
    if (f.enable && f.disable) {
      io.err("Only one of -enable or -disable may be provided");
      return 1;
    }
    if (!f.enable && f.reason !== "") {
      io.err("Reason may only be provided with -enable");
      return 1;
    }
    if (!f.enable && !f.disable && f.service !== "") {
      io.err("Service requires either -enable or -disable");
      return 1;
    }
    try {
      if (!f.enable && !f.disable) return await show(io, client().json.bind(client()));
      const query = { enable: f.enable ? "true" : "false", reason: f.reason || undefined };
      if (f.service !== "") {
        const path = `/v1/agent/service/maintenance/${f.service.split("/").map(encodeURIComponent).join("/")}`;
        await client().request("PUT", path, { query });
        io.out(`Service maintenance is now ${f.enable ? "enabled" : "disabled"} for "${f.service}"`);
      } else {
        await client().request("PUT", "/v1/agent/maintenance", { query });
        io.out(`Node maintenance is now ${f.enable ? "enabled" : "disabled"}`);
      }
      return 0;
    } catch (err) {
      io.err(`Error: ${errorText(err)}`);
      return 1;
    }
  },
});

async function show(
  io: { out(text: string): void },
  json: (method: string, path: string) => Promise<import("../json.js").JsonValue>,
): Promise<number> {
  const self = await json("GET", "/v1/agent/self");
  const config = isObject(self) ? field(self, "Config") : undefined;
  const nodeName = isObject(config) ? asString(field(config, "NodeName")) : "";
  const checks = await json("GET", "/v1/agent/checks");
  for (const check of isObject(checks) ? Object.values(checks) : []) {
    if (!isObject(check)) continue;
    const id = asString(field(check, "CheckID"));
    const notes = asString(field(check, "Notes"));
    if (id === NODE_CHECK) io.out(`Node:\n  Name:   ${nodeName}\n  Reason: ${notes}\n`);
    else if (id.startsWith(SERVICE_PREFIX)) {
      io.out(`Service:\n  ID:     ${id.slice(SERVICE_PREFIX.length)}\n  Reason: ${notes}\n`);
    }
  }
  return 0;
}
