// The shape every command has: a flag set, help text, and a run function. Parsing, `-h` and usage errors
// are handled here once, as the consul CLI does them (help on stdout with exit 0; a bad flag prints the
// error and the usage on stderr with exit 1).
import { type FlagSet, formatFlags, type Parsed, parseFlags, UsageError } from "./args.js";
import { HttpClient, type HttpFlagValues, httpFlags, resolveHttpConfig } from "./http.js";

export interface Io {
  /** Writes a line to stdout; bytes are written as they are (KV values need not be UTF-8). */
  out(text: string | Uint8Array): void;
  err(text: string): void;
  readStdin(): Promise<Buffer>;
  env: Readonly<Record<string, string | undefined>>;
  /** Where relative paths point (`cairn tls` writes its files there); the process's directory when unset. */
  cwd?: string;
}

export interface Command {
  synopsis: string;
  help(): string;
  run(argv: readonly string[], io: Io): Promise<number>;
}

interface Spec<S extends FlagSet> {
  synopsis: string;
  usage: string;
  flags: S;
  /** Whether the command talks to the HTTP API (adds the HTTP flags and builds a client). */
  http: boolean;
  run(args: Parsed<S>, ctx: { io: Io; client: () => HttpClient }): Promise<number>;
}

export function defineCommand<S extends FlagSet>(spec: Spec<S>): Command {
  const all = (spec.http ? { ...httpFlags, ...spec.flags } : spec.flags) as S;
  const help = () =>
    [
      spec.usage.trim(),
      spec.http ? formatFlags("HTTP API Options", httpFlags) : "",
      formatFlags("Command Options", spec.flags),
    ]
      .filter((s) => s !== "")
      .join("\n\n");
  return {
    synopsis: spec.synopsis,
    help,
    async run(argv, io) {
      let parsed: Parsed<S>;
      try {
        parsed = parseFlags(all, argv);
      } catch (err) {
        if (!(err instanceof UsageError)) throw err;
        io.err(err.message);
        io.err(help());
        return 1;
      }
      if (parsed.help) {
        io.out(help());
        return 0;
      }
      let client: HttpClient | undefined;
      const getClient = () => {
        client ??= new HttpClient(resolveHttpConfig(parsed.values as unknown as HttpFlagValues, io.env));
        return client;
      };
      return spec.run(parsed, { io, client: getClient });
    },
  };
}

/** A command that only groups subcommands (`cairn kv`, `cairn operator raft`). */
export function commandGroup(synopsis: string, usage: string, subcommands: Record<string, Command>): Command {
  const help = () => {
    const width = Math.max(...Object.keys(subcommands).map((n) => n.length));
    const lines = Object.entries(subcommands)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, cmd]) => `    ${name.padEnd(width)}    ${cmd.synopsis}`);
    return `${usage.trim()}\n\nSubcommands:\n${lines.join("\n")}`;
  };
  return {
    synopsis,
    help,
    async run(argv, io) {
      const [name, ...rest] = argv;
      if (name === "-h" || name === "-help" || name === "--help") {
        io.out(help());
        return 0;
      }
      const sub = name !== undefined && Object.hasOwn(subcommands, name) ? subcommands[name] : undefined;
      if (sub === undefined) {
        io.err(help());
        return 1;
      }
      return sub.run(rest, io);
    },
  };
}

export function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
