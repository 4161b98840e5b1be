// The harnesses' port picker (scripts/lib/ports.ts) must not hand out a port that fetch() refuses: tests
// reach agents with fetch, and an agent given 10080 served while every request to it failed at once.
import { describe, expect, it } from "vitest";
import { nextCandidate } from "../../../scripts/lib/ports.js";

describe("harness ports", () => {
  it("skips 10080, which fetch refuses as a bad port", async () => {
    await expect(fetch("http://127.0.0.1:10080/")).rejects.toMatchObject({ cause: { message: "bad port" } });
    // In turn through 10079-10081 from 10079: 10080 is passed over, and the walk wraps to the start.
    expect(nextCandidate(10_079, 3, 0)).toEqual({ port: 10_079, cursor: 1 });
    expect(nextCandidate(10_079, 3, 1)).toEqual({ port: 10_081, cursor: 3 });
    expect(nextCandidate(10_079, 3, 3)).toEqual({ port: 10_079, cursor: 4 });
  });
});
