// (b) A set kept in one key as a JSON array, grown by read-then-CAS adds. Every attempt adds a fresh element;
// an add is acknowledged when its CAS answers true and definitely failed when it answers false. The final
// consistent read of each key must hold every acknowledged element, once, and nothing else but elements whose
// add timed out.

import { sleep } from "../../../scripts/lib/wait.js";
import { checkSet, type SetAdd } from "../check/set.js";
import {
  Client,
  putKey,
  readKey,
  type Workload,
  type WorkloadContext,
  type WorkloadVerdict,
} from "./workload.js";

function decode(value: string | null): string[] {
  if (value === null || value === "") return [];
  const parsed: unknown = JSON.parse(value);
  if (!Array.isArray(parsed) || !parsed.every((e) => typeof e === "string")) {
    throw new Error(`set value is not an array of strings: ${value.slice(0, 100)}`);
  }
  return parsed;
}

export function setWorkload(ctx: WorkloadContext, clients = 2, elementsPerKey = 150): Workload {
  const adds: SetAdd[] = [];
  const finalReads = new Map<string, string[]>();
  const keys = new Set<string>();
  let attempts = 0;

  async function runClient(id: number, running: () => boolean): Promise<void> {
    const client = new Client(id + 100, ctx);
    let counter = 0;
    while (running()) {
      const key = `${ctx.prefix}/set/${Math.floor(attempts / elementsPerKey)}`;
      keys.add(key);
      const entry = await readKey(client, key);
      if (entry === undefined) continue;
      const element = `${id}-${counter++}`;
      attempts++;
      const elements = [...decode(entry?.value ?? null), element];
      const ok = await putKey(client, `${key}?cas=${entry?.modifyIndex ?? 0}`, JSON.stringify(elements));
      adds.push({ key, element, outcome: ok === true ? "ok" : ok === false ? "fail" : "unknown" });
    }
  }

  return {
    name: "set",
    run: async (running) => {
      await Promise.all(Array.from({ length: clients }, (_, i) => runClient(i, running)));
    },
    finish: async () => {
      const client = new Client(0, ctx);
      for (const key of keys) {
        for (let attempt = 0; attempt < 60 && !finalReads.has(key); attempt++) {
          const entry = await readKey(client, key);
          if (entry !== undefined) finalReads.set(key, decode(entry?.value ?? null));
          else await sleep(500);
        }
      }
    },
    check(): WorkloadVerdict {
      const v = checkSet(adds, finalReads);
      return {
        workload: "set",
        valid: v.valid,
        summary: `${v.acknowledged} acknowledged adds, ${v.unknownAdds} unknown (${v.recovered} applied); lost ${v.lost.length}, duplicated ${v.duplicated.length}, unexpected ${v.unexpected.length}, unread keys ${v.unread.length}`,
        details: v,
      };
    },
    history: () => [...adds, ...[...finalReads].map(([key, elements]) => ({ finalRead: key, elements }))],
  };
}
