// `cairn join`, as `consul join`: asks the agent to join the cluster through each given address.
import { boolFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";

export const joinCommand: Command = defineCommand({
  synopsis: "Tell Cairn agent to join cluster",
  usage: `
Usage: cairn join [options] address ...

  Tells a running Cairn agent (with "cairn agent") to join the cluster
  by specifying at least one existing member.`,
  http: true,
  flags: {
    wan: boolFlag("Joins a server to another server in the WAN pool."),
  },
  async run({ values: f, positionals: addresses }, { io, client }) {
    if (addresses.length === 0) {
      io.err("At least one address to join must be specified.");
      io.err("");
      io.err(joinCommand.help());
      return 1;
    }
    let joined = 0;
    for (const address of addresses) {
      try {
        const res = await client().request("PUT", `/v1/agent/join/${encodeURIComponent(address)}`, {
          query: { wan: f.wan ? "1" : undefined },
        });
        res.discard();
        joined++;
      } catch (err) {
        io.err(`Error joining address '${address}': ${errorText(err)}`);
      }
    }
    if (joined === 0) {
      io.err("Failed to join any nodes.");
      return 1;
    }
    io.out(`Successfully joined cluster by contacting ${joined} nodes.`);
    return 0;
  },
});
