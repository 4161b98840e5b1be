// `cairn watch`, as `consul watch`: blocking queries on one view; without a handler the first result is
// printed and the command exits, with one the handler runs on every change with the JSON on its stdin.
import { type ChildProcess, spawn } from "node:child_process";
import { writeJson } from "@cairn/json";
import { boolFlag, parseBool, stringFlag } from "../args.js";
import { realClock } from "../clock.js";
import { type Command, defineCommand, errorText, type Io } from "../command.js";
import type { HttpClient } from "../http.js";
import { type JsonValue, parseJson, stringifyGo } from "../json.js";
import {
  parseWatch,
  type WatchParams,
  WatchParseError,
  type WatchPlan,
  WatchProgress,
} from "./watch-plan.js";

/** Consul's watch retry: 5 s times the square of the consecutive failures, at most 3 minutes. */
const RETRY_BASE_MS = 5_000;
const MAX_RETRY_MS = 180_000;

export const watchCommand: Command = defineCommand({
  synopsis: "Watch for changes in Cairn",
  usage: `
Usage: cairn watch [options] [child...]

  Watches for changes in a given data view from Cairn. If a child process
  is specified, it will be invoked with the latest results on changes. Otherwise,
  the latest values are dumped to stdout and the watch terminates.

  Providing the watch type is required, and other parameters may be required
  or supported depending on the watch type.`,
  http: true,
  flags: {
    type: stringFlag(
      "Specifies the watch type. One of key, keyprefix, services, nodes, service, checks, or event.",
    ),
    key: stringFlag("Specifies the key to watch. Only for 'key' type."),
    prefix: stringFlag("Specifies the key prefix to watch. Only for 'keyprefix' type."),
    service: stringFlag(
      "Specifies the service to watch. Required for 'service' type, optional for 'checks' type.",
    ),
    tag: stringFlag("Specifies the service tag to filter on. Optional for 'service' type."),
    passingonly: stringFlag(
      "Specifies if only hosts passing all checks are displayed. Optional for 'service' type, must be one " +
        "of `[true|false]`. Defaults false.",
    ),
    state: stringFlag("Specifies the states to watch. Optional for 'checks' type."),
    name: stringFlag("Specifies an event name to watch. Only for 'event' type."),
    shell: boolFlag(
      "Use a shell to run the command (can set a custom shell via the SHELL environment variable).",
      true,
    ),
  },
  async run({ values: f, positionals: handler }, { io, client }) {
    if (f.type === "") {
      io.err("Watch type must be specified");
      io.err("");
      io.err(watchCommand.help());
      return 1;
    }
    const http = client();
    const params: WatchParams = new Map();
    const set = (name: string, value: string | boolean) => {
      if (value !== "" && value !== false) params.set(name, value);
    };
    set("type", f.type);
    set("datacenter", http.config.datacenter);
    set("key", f.key);
    set("prefix", f.prefix);
    set("service", f.service);
    set("tag", f.tag);
    set("stale", http.config.stale);
    set("state", f.state);
    set("name", f.name);
    if (f.passingonly !== "") {
      try {
        params.set("passingonly", parseBool(f.passingonly));
      } catch {
        io.err(
          `Failed to parse passingonly flag: strconv.ParseBool: parsing "${f.passingonly}": invalid syntax`,
        );
        return 1;
      }
    }
    let plan: WatchPlan;
    try {
      plan = parseWatch(params);
    } catch (err) {
      if (!(err instanceof WatchParseError)) throw err;
      io.err(err.message);
      return 1;
    }
    const run =
      handler.length === 0
        ? undefined
        : f.shell
          ? ([io.env.SHELL || "/bin/sh", "-c", handler.join(" ")] as const)
          : ([handler[0]!, ...handler.slice(1)] as const);
    return new Watch(plan, http, io, run === undefined ? undefined : [...run]).run();
  },
});

/** One running watch: the blocking loop, the handler runs, and SIGINT/SIGTERM. */
class Watch {
  readonly #stop = new AbortController();
  #child: ChildProcess | undefined;
  readonly #progress: WatchProgress;

  constructor(
    private readonly plan: WatchPlan,
    private readonly client: HttpClient,
    private readonly io: Io,
    private readonly handler: string[] | undefined,
  ) {
    this.#progress = new WatchProgress(plan);
  }

  async run(): Promise<number> {
    const onSignal = (signal: NodeJS.Signals) => {
      this.#stop.abort();
      this.#child?.kill(signal);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
    try {
      return await this.#loop();
    } finally {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    }
  }

  async #loop(): Promise<number> {
    let failures = 0;
    let first = true;
    while (!this.#stop.signal.aborted) {
      let answer: { index: bigint; body: JsonValue | undefined };
      try {
        answer = await this.#query();
      } catch (err) {
        if (this.#stop.signal.aborted) break;
        // The first query stands in for consul's agent check before the watch starts.
        if (first) {
          this.io.err(`Error querying Cairn agent: ${errorText(err)}`);
          return 1;
        }
        failures++;
        this.#progress.reset();
        const retryMs = Math.min(RETRY_BASE_MS * failures * failures, MAX_RETRY_MS);
        this.io.err(
          `Watch errored: type=${this.plan.type} error="${errorText(err)}" retry=${retryMs / 1000}s`,
        );
        await this.#sleep(retryMs);
        continue;
      }
      first = false;
      failures = 0;
      const step = this.#progress.observe(answer.index, answer.body);
      if (!step.run) continue;
      if (this.handler === undefined) {
        this.io.out(stringifyGo(step.data, "    "));
        return 0;
      }
      const failed = await this.#runHandler(this.handler, step.index, step.data);
      // Interrupted while the handler ran: the signal reached it too, and the watch ends cleanly.
      if (this.#stop.signal.aborted) return 0;
      if (failed !== undefined) {
        this.io.err(failed);
        return 1;
      }
    }
    return 0;
  }

  async #query(): Promise<{ index: bigint; body: JsonValue | undefined }> {
    const wait = this.#progress.waitIndex;
    const res = await this.client.request("GET", this.plan.path, {
      query: { ...this.plan.query, index: wait > 0n ? wait : undefined },
      read: this.plan.stale,
      accept: this.plan.notFoundIsEmpty ? [404] : [],
      signal: this.#stop.signal,
    });
    const text = await res.text();
    return { index: res.index, body: res.status === 404 ? undefined : parseJson(text) };
  }

  /** Runs the handler to completion; returns an error line when it could not start or failed. */
  #runHandler(argv: string[], index: bigint, data: JsonValue): Promise<string | undefined> {
    return new Promise((resolve) => {
      const child = spawn(argv[0]!, argv.slice(1), {
        env: { ...this.io.env, CONSUL_INDEX: index.toString() },
        stdio: ["pipe", "inherit", "inherit"],
      });
      this.#child = child;
      child.once("error", (err) => {
        this.#child = undefined;
        resolve(`Error starting handler: ${errorText(err)}`);
      });
      child.once("close", (code, signal) => {
        this.#child = undefined;
        if (code === 0) resolve(undefined);
        else resolve(`Error executing handler: ${signal ? `signal: ${signal}` : `exit status ${code}`}`);
      });
      // A handler that does not read its input must not fail the watch.
      child.stdin.once("error", () => {});
      child.stdin.end(`${goCompactJson(data)}\n`);
    });
  }

  async #sleep(ms: number): Promise<void> {
    await realClock.sleep(ms, this.#stop.signal);
  }
}

/** Go's json.Encoder output: compact, with `<`, `>`, `&`, U+2028 and U+2029 escaped (only in strings). */
function goCompactJson(value: JsonValue): string {
  return writeJson(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
