// `cairn reload`, as `consul reload`.
import { type Command, defineCommand, errorText } from "../command.js";

export const reloadCommand: Command = defineCommand({
  synopsis: "Triggers the agent to reload configuration files",
  usage: `
Usage: cairn reload [options]

  Causes the agent to reload configurations. This can be used instead
  of sending the SIGHUP signal to the agent.`,
  http: true,
  flags: {},
  async run(_args, { io, client }) {
    try {
      await client().request("PUT", "/v1/agent/reload");
    } catch (err) {
      io.err(`Error reloading: ${errorText(err)}`);
      return 1;
    }
    io.out("Configuration reload triggered");
    return 0;
  },
});
