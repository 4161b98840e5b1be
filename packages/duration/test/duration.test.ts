import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DurationError, formatDuration, parseDurationMs, parseDurationNs } from "../src/index.js";

describe("Go durations", () => {
  it.each([
    ["0", 0n],
    ["15s", 15_000_000_000n],
    ["9.97s", 9_970_000_000n],
    ["1ms", 1_000_000n],
    ["100ms", 100_000_000n],
    ["1m30s", 90_000_000_000n],
    ["1h", 3_600_000_000_000n],
    ["1.5h", 5_400_000_000_000n],
    ["2us", 2_000n],
    ["2µs", 2_000n],
    ["3ns", 3n],
    ["-1.5s", -1_500_000_000n],
    ["+5m", 300_000_000_000n],
    [".5s", 500_000_000n],
    ["1.s", 1_000_000_000n],
    ["1h2m3s4ms", 3_723_004_000_000n],
    ["0.0000000001s", 0n],
  ])("parses %s", (text, ns) => {
    expect(parseDurationNs(text)).toBe(ns);
  });

  it.each(["", "1", "s", "1x", "1.5", "--1s", ".s", "1s2", "ms", " 1s", "1 s", "9223372036854775808ns"])(
    "rejects %j",
    (text) => {
      expect(() => parseDurationNs(text)).toThrow(DurationError);
    },
  );

  it("gives milliseconds with fractions", () => {
    expect(parseDurationMs("1.5ms")).toBe(1.5);
  });

  it.each([
    [0n, "0s"],
    [1n, "1ns"],
    [1_500n, "1.5µs"],
    [100_000_000n, "100ms"],
    [1_500_000_000n, "1.5s"],
    [90_000_000_000n, "1m30s"],
    [3_600_000_000_000n, "1h0m0s"],
    [-2_000_000_000n, "-2s"],
  ])("formats %s as %s", (ns, text) => {
    expect(formatDuration(ns)).toBe(text);
  });

  it("round-trips format then parse", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 18n), max: 10n ** 18n }), (ns) => {
        expect(parseDurationNs(formatDuration(ns))).toBe(ns);
      }),
    );
  });

  it("never throws anything but DurationError", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        try {
          parseDurationNs(text);
        } catch (err) {
          expect(err).toBeInstanceOf(DurationError);
        }
      }),
    );
  });
});
