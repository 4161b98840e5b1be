/**
 * Work deferred to the end of the event loop's turn, all of it in one check phase.
 *
 * A process defers much of its work to the end of the turn so that what arrived together leaves together:
 * the Raft driver's pass over its Readys, a peer link's frame of messages, a tunnel's corked writes, the
 * reads a server answers in a batch. Each of those alone would be a setImmediate, and a setImmediate set
 * while the check phase runs waits for the next turn: after the next poll phase, which on a busy server
 * takes in and handles a whole round of requests first. Chained, they cost a turn each: a read answered at
 * the end of one turn had its answer corked by the tunnel and written at the end of the next, and a leader's
 * append left for its followers a turn after the pass that made it.
 *
 * Here there is one setImmediate per turn. What its callbacks defer again, directly or in the promise
 * continuations they set off, runs in the same check phase once those continuations are done, in rounds,
 * until nothing is left. Only work that ends belongs here: a task that yields to I/O on purpose (a long job
 * cut into slices) must use setImmediate itself, or it would never yield. A chain longer than MAX_ROUNDS
 * goes on in the next turn.
 */
export function atTurnEnd(fn: () => void): void {
  queue.push(fn);
  if (draining || scheduled) return;
  scheduled = true;
  setImmediate(drain);
}

/** Rounds run in one check phase before the rest waits for the next turn: a bound, not a tuning. */
const MAX_ROUNDS = 16;

let queue: Array<() => void> = [];
/** A setImmediate is set for the queue. */
let scheduled = false;
/** The queue is being run: what is deferred now joins the next round, in this check phase. */
let draining = false;

function drain(): void {
  scheduled = false;
  draining = true;
  runRound(1);
}

function runRound(round: number): void {
  const tasks = queue;
  queue = [];
  for (const task of tasks) {
    try {
      task();
    } catch (err) {
      // As thrown from a setImmediate of its own: uncaught, once the queue is in a consistent state.
      process.nextTick(() => {
        throw err;
      });
    }
  }
  // Promise continuations of those tasks run before any nextTick that a microtask queues: this one runs once
  // every continuation the round set off has run, and so sees everything they deferred.
  queueMicrotask(() => process.nextTick(() => afterRound(round)));
}

function afterRound(round: number): void {
  if (queue.length === 0) {
    draining = false;
  } else if (round < MAX_ROUNDS) {
    runRound(round + 1);
  } else {
    draining = false;
    scheduled = true;
    setImmediate(drain);
  }
}
