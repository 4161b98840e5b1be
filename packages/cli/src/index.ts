export type { Flag, FlagSet, FlagValues, Parsed } from "./args.js";
export { parseFlags, UsageError } from "./args.js";
export { rootCommand, runCli } from "./cli.js";
export type { Command, Io } from "./command.js";
export type { HttpConfig } from "./http.js";
export { HttpClient, resolveHttpConfig } from "./http.js";
export type { JsonValue } from "./json.js";
export { parseJson, stringifyGo } from "./json.js";
