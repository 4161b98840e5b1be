import { describe, expect, it } from "vitest";
import { isRaftMessage } from "../../src/transport/message-shape.js";

const snapshot = {
  type: "snapshot",
  from: "a",
  to: "b",
  term: 3,
  snapshot: { index: 40, term: 2, conf: { voters: ["a", "b"], learners: ["d"] } },
};

describe("raft message shape: snapshot", () => {
  it("takes a snapshot message with or without the sender's address book", () => {
    expect(isRaftMessage(snapshot)).toBe(true);
    expect(isRaftMessage({ ...snapshot, addresses: { a: "127.0.0.1:1", d: "127.0.0.1:4" } })).toBe(true);
  });

  it("refuses an address book that is not names to address strings", () => {
    expect(isRaftMessage({ ...snapshot, addresses: { d: 4 } })).toBe(false);
    expect(isRaftMessage({ ...snapshot, addresses: ["127.0.0.1:4"] })).toBe(false);
    expect(isRaftMessage({ ...snapshot, addresses: null })).toBe(false);
  });
});
