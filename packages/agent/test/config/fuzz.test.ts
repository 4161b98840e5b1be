import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError, configSourceSchema, parseAgentFlags, resolveAgentConfig } from "../../src/index.js";

const KEYS = [...Object.keys(configSourceSchema.shape), "acl_master_token", "ui", "connect", "bogus"];
const FLAG_WORDS = [
  "-server",
  "-dev",
  "-bootstrap",
  "-bootstrap-expect",
  "-data-dir",
  "-retry-join",
  "-node-meta",
  "-hcl",
  "--",
  "-x",
  "=",
  "3",
  "true",
  "a:b",
  "",
];

function onlyConfigErrors(run: () => void): void {
  try {
    run();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    expect(error.message).not.toContain("\n");
  }
}

describe("configuration fuzz", () => {
  it("any JSON under Consul's keys either loads or fails with a one-line ConfigError", () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    const nested = fc.dictionary(
      fc.constantFrom("http", "enabled", "tokens", "name", "port", "x", "0"),
      value,
      { maxKeys: 4 },
    );
    const config = fc.dictionary(
      fc.constantFrom(...KEYS),
      fc.oneof(value, nested, fc.array(nested, { maxLength: 2 })),
      {
        maxKeys: 8,
      },
    );
    fc.assert(
      fc.property(config, fc.boolean(), (raw, dev) => {
        const flags = { ...parseAgentFlags(dev ? ["-dev"] : ["-data-dir=/d"]) };
        const file = {
          name: "config file f.json",
          path: "f.json",
          format: "json" as const,
          text: JSON.stringify(raw),
        };
        onlyConfigErrors(() => resolveAgentConfig(flags, [file], "host"));
      }),
      { numRuns: 2000 },
    );
  });

  it("any argument list either parses or fails with a ConfigError", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...FLAG_WORDS), fc.string({ maxLength: 6 })), { maxLength: 8 }),
        (argv) => onlyConfigErrors(() => resolveAgentConfig(parseAgentFlags(argv), [], "host")),
      ),
      { numRuns: 2000 },
    );
  });
});
