// `cairn event`, as `consul event`: fires a user event through the agent's /v1/event/fire.
import { stringFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";
import { asString, field, isObject } from "../json.js";

export const eventCommand: Command = defineCommand({
  synopsis: "Fire a new event",
  usage: `
Usage: cairn event [options] [payload]

  Dispatches a custom user event across a datacenter. An event must provide
  a name, but a payload is optional. Events support filtering using
  regular expressions on node name, service, and tag definitions.`,
  http: true,
  flags: {
    name: stringFlag("Name of the event."),
    node: stringFlag("Regular expression to filter on node names."),
    service: stringFlag("Regular expression to filter on service instances."),
    tag: stringFlag("Regular expression to filter on service tags. Must be used with -service."),
  },
  async run({ values: f, positionals }, { io, client }) {
    if (f.name === "") {
      io.err("Event name must be specified");
      io.err("");
      io.err(eventCommand.help());
      return 1;
    }
    for (const [what, source] of [
      ["node", f.node],
      ["service", f.service],
      ["tag", f.tag],
    ] as const) {
      const problem = regexpProblem(source);
      if (problem !== undefined) {
        io.err(`Failed to compile ${what} filter regexp: ${problem}`);
        return 1;
      }
    }
    if (f.tag !== "" && f.service === "") {
      io.err("Cannot provide tag filter without service filter.");
      return 1;
    }
    if (positionals.length > 1) {
      io.err("Too many command line arguments.");
      io.err("");
      io.err(eventCommand.help());
      return 1;
    }
    const payload = positionals[0];
    try {
      const event = await client().json("PUT", `/v1/event/fire/${encodeURIComponent(f.name)}`, {
        query: { node: f.node || undefined, service: f.service || undefined, tag: f.tag || undefined },
        body: payload,
      });
      io.out(`Event ID: ${isObject(event) ? asString(field(event, "ID")) : ""}`);
      return 0;
    } catch (err) {
      io.err(`Error firing event: ${errorText(err)}`);
      return 1;
    }
  },
});

function regexpProblem(source: string): string | undefined {
  if (source === "") return undefined;
  try {
    new RegExp(source);
    return undefined;
  } catch (err) {
    return errorText(err);
  }
}
