// `cairn force-leave`, as `consul force-leave`: moves a failed member to "left" (and with -prune forgets it).
import { boolFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";

export const forceLeaveCommand: Command = defineCommand({
  synopsis: 'Forces a member of the cluster to enter the "left" state',
  usage: `
Usage: cairn force-leave [options] name

  Forces a member of a Cairn cluster to enter the "left" state. Note
  that if the member is still actually alive, it will eventually rejoin
  the cluster. This command is most useful for cleaning out "failed" nodes
  that are never coming back. If you do not force leave a failed node,
  Cairn will attempt to reconnect to those failed nodes for some period of
  time before eventually reaping them.`,
  http: true,
  flags: {
    prune: boolFlag("Remove agent forcibly from list of members"),
    wan: boolFlag("Exit agent from WAN pool only"),
  },
  async run({ values: f, positionals: nodes }, { io, client }) {
    if (nodes.length !== 1) {
      io.err("A single node name must be specified to force leave.");
      io.err("");
      io.err(forceLeaveCommand.help());
      return 1;
    }
    try {
      const res = await client().request("PUT", `/v1/agent/force-leave/${encodeURIComponent(nodes[0]!)}`, {
        query: { prune: f.prune ? "1" : undefined, wan: f.wan ? "1" : undefined },
      });
      res.discard();
      return 0;
    } catch (err) {
      io.err(`Error force leaving: ${errorText(err)}`);
      return 1;
    }
  },
});
