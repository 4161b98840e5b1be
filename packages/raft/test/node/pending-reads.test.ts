// A read index asked of a leader that died must not wait out its timeout: a leadership change fails the
// reads still waiting for an answer (the caller retries with the new leader), not those already answered.
import { describe, expect, it } from "vitest";
import { NotLeaderError } from "../../src/node/errors.js";
import { PendingReads } from "../../src/node/pending.js";

describe("pending reads", () => {
  it("fails unanswered reads on a leadership change and keeps the answered ones waiting for the apply", async () => {
    const reads = new PendingReads();
    const unanswered = reads.add("a", 60_000);
    const answered = reads.add("b", 60_000);
    reads.answered("b", { index: 10 }, 5);
    reads.failUnanswered(new NotLeaderError("no-leader", null, null));
    await expect(unanswered).rejects.toBeInstanceOf(NotLeaderError);
    reads.applied(10);
    await expect(answered).resolves.toBe(10);
  });
});
