// `cairn monitor`, as `consul monitor`: streams the agent's log lines until interrupted.
import { boolFlag, stringFlag } from "../args.js";
import { type Command, defineCommand, errorText } from "../command.js";

export const monitorCommand: Command = defineCommand({
  synopsis: "Stream logs from a Cairn agent",
  usage: `
Usage: cairn monitor [options]

  Shows recent log messages of a Cairn agent, and attaches to the agent,
  outputting log messages as they occur in real time. The monitor lets you
  listen for log levels that may be filtered out of the agent's own output.
  For example your agent may only be logging at INFO level, but with the
  monitor you can see the DEBUG level logs.`,
  http: true,
  flags: {
    "log-level": stringFlag("Log level of the agent.", "INFO"),
    "log-json": boolFlag("Output logs in JSON format."),
  },
  async run({ values: f }, { io, client }) {
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once("SIGINT", onSignal);
    process.once("SIGTERM", onSignal);
    try {
      const res = await client().request("GET", "/v1/agent/monitor", {
        query: { loglevel: f["log-level"].toLowerCase(), logjson: f["log-json"] || undefined },
        signal: stop.signal,
      });
      let pending = "";
      for await (const chunk of res.stream) {
        pending += (chunk as Buffer).toString("utf8");
        const lines = pending.split("\n");
        pending = lines.pop() ?? "";
        for (const line of lines) io.out(line);
      }
      if (pending !== "") io.out(pending);
      return 0;
    } catch (err) {
      if (stop.signal.aborted) return 0;
      io.err(`Error starting monitor: ${errorText(err)}`);
      return 1;
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  },
});
