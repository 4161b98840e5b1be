import { describe, expect, it } from "vitest";
import {
  boolFlag,
  durationFlag,
  intFlag,
  parseFlags,
  stringFlag,
  UsageError,
  uint64Flag,
} from "../src/args.js";

const set = {
  recurse: boolFlag("r"),
  separator: stringFlag("s", "/"),
  flags: uint64Flag("f"),
  n: intFlag("n", 1),
  timeout: durationFlag("t"),
};

describe("parseFlags (Go flag semantics)", () => {
  it("starts from the defaults", () => {
    const p = parseFlags(set, []);
    expect(p.values).toEqual({ recurse: false, separator: "/", flags: 0n, n: 1, timeout: 0 });
    expect(p.positionals).toEqual([]);
    expect(p.given.size).toBe(0);
  });

  it("takes -name=value, -name value, --name and bare booleans", () => {
    const p = parseFlags(set, ["-separator=:", "--n", "3", "-recurse", "-timeout=1m30s", "key"]);
    expect(p.values).toMatchObject({ separator: ":", n: 3, recurse: true, timeout: 90_000 });
    expect(p.positionals).toEqual(["key"]);
    expect([...p.given].sort()).toEqual(["n", "recurse", "separator", "timeout"]);
  });

  it("does not let a boolean consume the next argument", () => {
    const p = parseFlags(set, ["-recurse", "false"]);
    expect(p.values.recurse).toBe(true);
    expect(p.positionals).toEqual(["false"]);
    expect(parseFlags(set, ["-recurse=false"]).values.recurse).toBe(false);
    expect(parseFlags(set, ["-recurse=0"]).values.recurse).toBe(false);
  });

  it("stops at the first positional, a lone '-', and after '--'", () => {
    expect(parseFlags(set, ["prefix", "-recurse"]).positionals).toEqual(["prefix", "-recurse"]);
    expect(parseFlags(set, ["key", "-"]).positionals).toEqual(["key", "-"]);
    expect(parseFlags(set, ["-", "-recurse"]).positionals).toEqual(["-", "-recurse"]);
    const p = parseFlags(set, ["-n=2", "--", "-recurse"]);
    expect(p.values.n).toBe(2);
    expect(p.positionals).toEqual(["-recurse"]);
  });

  it("keeps uint64 values exact beyond 2^53", () => {
    expect(parseFlags(set, ["-flags=18446744073709551615"]).values.flags).toBe(18446744073709551615n);
    expect(parseFlags(set, ["-flags", "9007199254740993"]).values.flags).toBe(9007199254740993n);
    expect(parseFlags(set, ["-flags=0x2ddccbc058a50c18"]).values.flags).toBe(0x2ddccbc058a50c18n);
    expect(parseFlags(set, ["-flags=010"]).values.flags).toBe(8n);
  });

  it("rejects bad values with Go's wording", () => {
    expect(() => parseFlags(set, ["-flags=18446744073709551616"])).toThrow(
      'invalid value "18446744073709551616" for flag -flags: value out of range',
    );
    expect(() => parseFlags(set, ["-flags=-1"])).toThrow(UsageError);
    expect(() => parseFlags(set, ["-flags=12ab"])).toThrow(
      'invalid value "12ab" for flag -flags: parse error',
    );
    expect(() => parseFlags(set, ["-n=x"])).toThrow(UsageError);
    expect(() => parseFlags(set, ["-timeout=5"])).toThrow(UsageError);
    expect(() => parseFlags(set, ["-recurse=maybe"])).toThrow(
      'invalid boolean value "maybe" for flag -recurse',
    );
  });

  it("rejects unknown flags, bad syntax and a missing argument", () => {
    expect(() => parseFlags(set, ["-nope"])).toThrow("flag provided but not defined: -nope");
    expect(() => parseFlags(set, ["---n"])).toThrow("bad flag syntax: ---n");
    expect(() => parseFlags(set, ["-=1"])).toThrow("bad flag syntax: -=1");
    expect(() => parseFlags(set, ["-separator"])).toThrow("flag needs an argument: -separator");
  });

  it("reports -h, -help and --help as a help request", () => {
    for (const h of ["-h", "-help", "--help"]) expect(parseFlags(set, ["-recurse", h, "x"]).help).toBe(true);
  });

  it("does not treat inherited object keys as flags", () => {
    expect(() => parseFlags(set, ["-toString"])).toThrow("flag provided but not defined: -toString");
  });
});
