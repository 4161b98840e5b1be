import { formatDuration as formatGoDuration } from "@cairn/duration";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nanosToMillis, parseGoDuration } from "../../src/config/duration.js";

describe("parseGoDuration", () => {
  it.each([
    ["0", 0n],
    ["0s", 0n],
    ["-0", 0n],
    ["1ns", 1n],
    ["1us", 1_000n],
    ["1\u00b5s", 1_000n],
    ["1\u03bcs", 1_000n],
    ["100ms", 100_000_000n],
    ["15s", 15_000_000_000n],
    ["9.97s", 9_970_000_000n],
    ["1.5h", 5_400_000_000_000n],
    ["1m30s", 90_000_000_000n],
    ["1h2m3s4ms5us6ns", 3_723_004_005_006n],
    [".5s", 500_000_000n],
    ["1.s", 1_000_000_000n],
    ["-5s", -5_000_000_000n],
    ["+5s", 5_000_000_000n],
    ["1.0000000001s", 1_000_000_000n],
    ["87600h", 315_360_000_000_000_000n],
  ])("%s is %i ns", (text, nanos) => {
    expect(parseGoDuration(text)).toBe(nanos);
  });

  it.each([
    "",
    "s",
    "1",
    "10",
    "1x",
    "1hh",
    ".s",
    "1.2.3s",
    "--1s",
    "1s-",
    "1h-5m",
    " 1s",
    "1e3s",
    "3000000h",
  ])("rejects %j", (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it("converts to milliseconds", () => {
    expect(nanosToMillis(parseGoDuration("9.97s")!)).toBe(9970);
    expect(nanosToMillis(parseGoDuration("1500us")!)).toBe(1.5);
  });
});

describe("formatGoDuration", () => {
  it.each([
    [0n, "0s"],
    [1n, "1ns"],
    [1_500n, "1.5\u00b5s"],
    [150_000_000n, "150ms"],
    [1_000_000_000n, "1s"],
    [9_970_000_000n, "9.97s"],
    [90_000_000_000n, "1m30s"],
    [3_723_500_000_000n, "1h2m3.5s"],
    [3_600_000_000_000n, "1h0m0s"],
    [-5_000_000_000n, "-5s"],
  ])("%i ns is %s", (nanos, text) => {
    expect(formatGoDuration(nanos)).toBe(text);
  });

  it("round-trips through parseGoDuration", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 62n), max: 2n ** 62n }), (nanos) => {
        expect(parseGoDuration(formatGoDuration(nanos))).toBe(nanos);
      }),
    );
  });
});
