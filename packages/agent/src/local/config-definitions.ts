import {
  type CheckDefinition,
  DefinitionError,
  parseCheckDefinition,
  parseServiceDefinition,
  type ServiceDefinition,
} from "@cairn/api";

/** The `services`/`checks` of the agent's configuration, as they come from the config loader. */
export interface ConfigDefinitions {
  readonly services: readonly unknown[];
  readonly checks: readonly unknown[];
}

/** A definition from the configuration with its `token` (Consul syncs it with that token; empty: none). */
export interface Configured<T> {
  readonly def: T;
  readonly token: string;
}

/** Configuration blocks parsed as definitions; the first invalid one throws, naming it. */
export function parseConfigDefinitions(config: ConfigDefinitions): {
  services: Configured<ServiceDefinition>[];
  checks: Configured<CheckDefinition>[];
} {
  const named = <T>(what: string, i: number, parse: () => T): T => {
    try {
      return parse();
    } catch (err) {
      if (err instanceof DefinitionError) throw new DefinitionError(`${what}[${i}]: ${err.message}`);
      throw err;
    }
  };
  return {
    services: config.services.map((raw, i) => ({
      def: named("services", i, () => parseServiceDefinition(raw)),
      token: tokenOf(raw),
    })),
    checks: config.checks.map((raw, i) => ({
      def: named("checks", i, () => parseCheckDefinition(raw)),
      token: tokenOf(raw),
    })),
  };
}

/** A definition's `token` (`Token` in JSON); not a string: none. */
function tokenOf(raw: unknown): string {
  if (typeof raw !== "object" || raw === null) return "";
  const entry = Object.entries(raw).find(([k]) => k.toLowerCase() === "token");
  return typeof entry?.[1] === "string" ? entry[1] : "";
}
