// (a) A linearizable register per key: reads (?consistent), unconditional writes, and compare-and-set writes
// (?cas=<ModifyIndex of the value last read>). Every written value is unique, so the index a CAS names stands
// for exactly one value. Keys change every `opsPerKey` operations to keep each key's check tractable.

import { checkRegisters, type RegisterOp, type RegisterValue } from "../check/register.js";
import {
  Client,
  putKey,
  readKey,
  type Workload,
  type WorkloadContext,
  type WorkloadVerdict,
} from "./workload.js";

export function registerWorkload(ctx: WorkloadContext, clients = 4, opsPerKey = 100): Workload {
  const history: RegisterOp[] = [];
  let keyNumber = 0;
  let opsOnKey = 0;

  const currentKey = () => {
    if (opsOnKey >= opsPerKey) {
      keyNumber++;
      opsOnKey = 0;
    }
    opsOnKey++;
    return `${ctx.prefix}/register/${keyNumber}`;
  };

  async function runClient(id: number, running: () => boolean): Promise<void> {
    const client = new Client(id, ctx);
    const lastRead = new Map<string, { value: RegisterValue; index: number }>();
    let counter = 0;
    while (running()) {
      const key = currentKey();
      const roll = ctx.rng.next();
      const invoke = ctx.now();
      if (roll < 0.4) {
        const entry = await readKey(client, key);
        if (entry === undefined) continue;
        const value = entry?.value ?? null;
        if (entry) lastRead.set(key, { value, index: entry.modifyIndex });
        history.push({ process: id, key, invoke, complete: ctx.now(), f: "read", value });
      } else if (roll < 0.7) {
        const value = `${id}-${counter++}`;
        const ok = await putKey(client, key, value);
        history.push({
          process: id,
          key,
          invoke,
          complete: ok === true ? ctx.now() : undefined,
          f: "write",
          value,
        });
      } else {
        const seen = lastRead.get(key) ?? { value: null, index: 0 };
        const to = `${id}-${counter++}`;
        const ok = await putKey(client, `${key}?cas=${seen.index}`, to);
        history.push({
          process: id,
          key,
          invoke,
          complete: ok === undefined ? undefined : ctx.now(),
          f: "cas",
          from: seen.value,
          to,
          ok,
        });
      }
    }
  }

  return {
    name: "register",
    run: async (running) => {
      await Promise.all(Array.from({ length: clients }, (_, i) => runClient(i, running)));
    },
    finish: async () => {},
    check(): WorkloadVerdict {
      const verdict = checkRegisters(history);
      const unknown = history.filter((op) => op.complete === undefined && op.f !== "read").length;
      const bad = verdict.failures.filter((f) => f.result.verdict === "not-linearizable").length;
      return {
        workload: "register",
        valid: verdict.valid,
        summary: `${verdict.ops} ops on ${verdict.keys} keys (${unknown} writes with unknown outcome); ${bad} keys not linearizable, ${verdict.failures.length - bad} undecided`,
        details: verdict,
      };
    },
    history: () => history,
  };
}
