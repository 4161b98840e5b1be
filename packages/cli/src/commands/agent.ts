// `cairn agent ...` runs the server or client process from @cairn/agent. It is loaded on demand so that
// the other commands start fast and keep working in an install without the agent.
import { type Command, errorText } from "../command.js";

const AGENT_PACKAGE = "@cairn/agent";

type Loader = () => Promise<Record<string, unknown>>;

export function createAgentCommand(load: Loader = () => import(AGENT_PACKAGE)): Command {
  return {
    synopsis: "Runs a Cairn agent",
    help: () =>
      "Usage: cairn agent [options]\n\n  Starts a Cairn agent. Run `cairn agent -h` for its options.",
    async run(argv, io) {
      let mod: Record<string, unknown>;
      try {
        mod = await load();
      } catch (err) {
        io.err(`Error! The agent is not available: cannot load ${AGENT_PACKAGE} (${errorText(err)})`);
        return 1;
      }
      const runAgent = mod.runAgent;
      if (typeof runAgent !== "function") {
        io.err(`Error! The agent is not available: ${AGENT_PACKAGE} does not export runAgent(argv)`);
        return 1;
      }
      const code: unknown = await runAgent(argv);
      return typeof code === "number" ? code : 0;
    },
  };
}

export const agentCommand: Command = createAgentCommand();
