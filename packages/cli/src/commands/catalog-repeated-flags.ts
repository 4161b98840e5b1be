// Flags the consul CLI lets repeat (`-node-meta a=b -node-meta c=d`, `-tag a -tag b`): the shared parser keeps
// the last value of a flag, so these are taken out of the arguments first and handed to the command.
import type { Command } from "../command.js";

export type Repeated = Readonly<Record<string, readonly string[]>>;

/**
 * A command whose `names` flags may repeat. `build` makes the command for one run with the values given;
 * `booleans` names the command's boolean flags (they take no separate value), so the scan knows where the
 * flags end and the positional arguments begin, as Go's flag package does.
 */
export function withRepeatedFlags(
  names: readonly string[],
  booleans: readonly string[],
  build: (repeated: Repeated) => Command,
): Command {
  const template = build({});
  const bool = new Set([...booleans, "stale", "h", "help"]);
  return {
    synopsis: template.synopsis,
    help: template.help,
    run(argv, io) {
      const lists: Record<string, string[]> = Object.fromEntries(names.map((n) => [n, []]));
      const rest: string[] = [];
      let i = 0;
      for (; i < argv.length; i++) {
        const arg = argv[i]!;
        if (arg === "--" || arg.length < 2 || !arg.startsWith("-")) break;
        const body = arg.replace(/^--?/, "");
        const eq = body.indexOf("=");
        const name = eq < 0 ? body : body.slice(0, eq);
        const takesNext = eq < 0 && !bool.has(name);
        if (Object.hasOwn(lists, name)) {
          const value = eq >= 0 ? body.slice(eq + 1) : argv[++i];
          if (value === undefined) {
            io.err(`flag needs an argument: -${name}`);
            return Promise.resolve(1);
          }
          lists[name]!.push(value);
          continue;
        }
        rest.push(arg);
        if (takesNext && i + 1 < argv.length) rest.push(argv[++i]!);
      }
      rest.push(...argv.slice(i));
      return build(lists).run(rest, io);
    },
  };
}

/** `key=value` pairs (`-meta`, `-node-meta`); a missing `=` is a usage error naming the flag. */
export function keyValues(flag: string, values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf("=");
    if (eq < 0) throw new Error(`invalid -${flag} value "${v}": expected key=value`);
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}
