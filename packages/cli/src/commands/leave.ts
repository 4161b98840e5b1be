// `cairn leave`, as `consul leave`: the agent leaves the cluster gracefully and shuts down.
import { type Command, defineCommand, errorText } from "../command.js";

export const leaveCommand: Command = defineCommand({
  synopsis: "Gracefully leaves the Cairn cluster and shuts down",
  usage: `
Usage: cairn leave [options]

  Causes the agent to gracefully leave the Cairn cluster and shutdown.`,
  http: true,
  flags: {},
  async run({ positionals }, { io, client }) {
    if (positionals.length > 0) {
      io.err(`Error found unexpected args: [${positionals.join(" ")}]`);
      io.out(leaveCommand.help());
      return 1;
    }
    try {
      (await client().request("PUT", "/v1/agent/leave")).discard();
    } catch (err) {
      io.err(`Error leaving: ${errorText(err)}`);
      return 1;
    }
    io.out("Graceful leave complete");
    return 0;
  },
});
