import { clockOffset } from "./clock.js";
import { killLeader, killRandom } from "./kill.js";
import { killClient } from "./kill-client.js";
import type { Nemesis } from "./nemesis.js";
import { partition } from "./partition.js";
import { pause } from "./pause.js";
import { restart } from "./restart.js";
import { slowNetwork } from "./slow.js";

export const NEMESES: ReadonlyMap<string, Nemesis> = new Map(
  [killLeader, killRandom, killClient, pause, partition, restart, clockOffset, slowNetwork].map((n) => [
    n.name,
    n,
  ]),
);
