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

/** Configuration blocks parsed as definitions; the first invalid one throws, naming it. */
export function parseConfigDefinitions(config: ConfigDefinitions): {
  services: ServiceDefinition[];
  checks: CheckDefinition[];
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
    services: config.services.map((raw, i) => named("services", i, () => parseServiceDefinition(raw))),
    checks: config.checks.map((raw, i) => named("checks", i, () => parseCheckDefinition(raw))),
  };
}
