// A helper process of the HTTP benchmark (not run on its own): holds COUNT blocking GETs of PATH on
// HOST:PORT, prints "connected" once every one is sent, then, once every one is answered or lost (or after
// five minutes), one "result {json}" line with the answers' arrival times on the wall clock (ms), so the
// parent can compare them with the moment it sent the write that wakes them.
//
//   node --import tsx scripts/bench/held-child.ts HOST PORT PATH COUNT

import { holdRequests } from "./lib/held-requests.js";

const [host = "", port = "", path = "", count = ""] = process.argv.slice(2);
const n = Number(count);
const held = await holdRequests({ host, port: Number(port) }, path, n);
console.log("connected");
await held.settled(5 * 60_000);
const wall = (t: number) => performance.timeOrigin + t;
const answers = held.answeredAt;
console.log(
  `result ${JSON.stringify({
    count: n,
    answered: answers.length - held.notOk,
    failed: held.notOk + held.lost,
    first: answers.length > 0 ? wall(answers[0]!) : null,
    last: answers.length === n ? wall(answers[n - 1]!) : null,
  })}`,
);
held.close();
process.exit(0);
