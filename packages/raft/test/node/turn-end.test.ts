// atTurnEnd runs everything deferred in a turn in that turn's check phase, including what its own tasks and
// their promise continuations defer again: a chain of flushes costs no extra turns. A setImmediate set in the
// first task runs in the next turn, so any task that runs before it ran in the same check phase.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { beforeEach, describe, expect, it } from "vitest";
import { atTurnEnd } from "../../src/node/turn-end.js";

/** Resolves in the next turn of the event loop. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

describe("atTurnEnd", () => {
  // A test resumes inside the check phase that resolved the last one's promise: start each on a turn of its own.
  beforeEach(nextTurn);

  it("runs what a turn deferred in one check phase, in order", async () => {
    const ran: string[] = [];
    atTurnEnd(() => ran.push("a"));
    atTurnEnd(() => ran.push("b"));
    expect(ran).toEqual([]);
    await nextTurn();
    expect(ran).toEqual(["a", "b"]);
  });

  it("runs what its tasks defer again, directly or from promise continuations, in the same check phase", async () => {
    const ran: string[] = [];
    let nextTurnCame = false;
    const done = new Promise<void>((resolve) => {
      atTurnEnd(() => {
        setImmediate(() => {
          nextTurnCame = true;
        });
        ran.push("first");
        atTurnEnd(() => ran.push(`direct, next turn ${nextTurnCame}`));
        void (async () => {
          await Promise.resolve();
          await Promise.resolve();
          atTurnEnd(() => {
            ran.push(`from a continuation, next turn ${nextTurnCame}`);
            atTurnEnd(() => {
              ran.push(`third round, next turn ${nextTurnCame}`);
              resolve();
            });
          });
        })();
      });
    });
    await done;
    expect(ran).toEqual([
      "first",
      "direct, next turn false",
      "from a continuation, next turn false",
      "third round, next turn false",
    ]);
  });

  it("goes on in the next turn after MAX_ROUNDS rounds, and runs every task of a long chain", async () => {
    let rounds = 0;
    let inFirstTurn = 0;
    let firstTurn = true;
    const done = new Promise<void>((resolve) => {
      const step = () => {
        rounds++;
        if (firstTurn) inFirstTurn++;
        if (rounds === 40) resolve();
        else atTurnEnd(step);
      };
      atTurnEnd(() => {
        setImmediate(() => {
          firstTurn = false;
        });
        step();
      });
    });
    await done;
    expect(rounds).toBe(40);
    expect(inFirstTurn).toBe(16);
  });

  it("reports a task's exception as uncaught and still runs the others", () => {
    const module = fileURLToPath(new URL("../../src/node/turn-end.ts", import.meta.url));
    const script = `
      import { atTurnEnd } from ${JSON.stringify(module)};
      process.on("uncaughtException", (err) => {
        console.log("uncaught: " + err.message);
        atTurnEnd(() => console.log("still deferring"));
      });
      atTurnEnd(() => { throw new Error("boom"); });
      atTurnEnd(() => console.log("second ran"));
    `;
    const run = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.stdout.trim().split("\n")).toEqual(["second ran", "uncaught: boom", "still deferring"]);
  });
});
