// A local etcd cluster for side-by-side benchmarks: installs Debian's etcd-server when the binary is
// missing, starts N members on loopback with temp data dirs (etcd fsyncs its WAL on every commit by
// default), and finds the leader through the v3 JSON gateway.

import { spawnSync } from "node:child_process";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { freePorts } from "../../lib/ports.js";
import { isRunning, type Spawned, spawnTracked, stop } from "../../lib/processes.js";
import { GiveUp, waitFor } from "../../lib/wait.js";
import { installDebianPackage } from "./debian.js";
import { type HttpTarget, httpOk, keepAliveAgent } from "./http-client.js";

export interface EtcdMember {
  name: string;
  client: HttpTarget;
  process: Spawned;
}

export interface EtcdCluster {
  members: EtcdMember[];
  leader: EtcdMember;
  version: string;
  /** Starts a stopped member again with its data dir and ports (it rejoins from its own WAL). */
  restart(member: EtcdMember): void;
  /** The member every running member names as leader, once they agree. */
  awaitLeader(timeoutMs?: number): Promise<EtcdMember>;
  stop(): Promise<void>;
}

function etcdVersion(): string | undefined {
  const probe = spawnSync("etcd", ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) return undefined;
  return /etcd Version:\s*(\S+)/.exec(probe.stdout)?.[1] ?? probe.stdout.trim();
}

/** Returns etcd's version, installing Debian's etcd-server first when `etcd` is not on the PATH. */
export function ensureEtcd(log: (line: string) => void = console.error): string {
  const found = etcdVersion();
  if (found) return found;
  installDebianPackage("etcd-server", log);
  const installed = etcdVersion();
  if (!installed) throw new Error("etcd-server installed, but `etcd --version` does not run");
  return installed;
}

interface MemberStatus {
  header?: { member_id?: string };
  leader?: string;
}

/** Starts `size` etcd members on 127.0.0.1 and waits until they agree on a leader. */
export async function startEtcdCluster(size: number, dataRoot: string): Promise<EtcdCluster> {
  const version = ensureEtcd();
  const ports = await freePorts(size * 2);
  const names = Array.from({ length: size }, (_, i) => `etcd${i + 1}`);
  const peerUrl = (i: number) => `http://127.0.0.1:${ports[size + i]}`;
  const initialCluster = names.map((n, i) => `${n}=${peerUrl(i)}`).join(",");
  const token = `bench-${process.pid}-${Date.now()}`;

  const members: EtcdMember[] = [];
  const argv = new Map<EtcdMember, string[]>();
  for (const [i, name] of names.entries()) {
    const dataDir = join(dataRoot, name);
    await mkdir(dataDir, { recursive: true });
    const clientUrl = `http://127.0.0.1:${ports[i]}`;
    const args = [
      `--name=${name}`,
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl(i)}`,
      `--initial-advertise-peer-urls=${peerUrl(i)}`,
      `--initial-cluster=${initialCluster}`,
      `--initial-cluster-token=${token}`,
      "--initial-cluster-state=new",
      "--logger=zap",
      "--log-level=warn",
    ];
    const proc = spawnTracked(name, "etcd", args, { logFile: join(dataRoot, `${name}.log`) });
    const member = { name, client: { host: "127.0.0.1", port: ports[i]! }, process: proc };
    argv.set(member, args);
    members.push(member);
  }
  const restart = (member: EtcdMember) => {
    member.process = spawnTracked(member.name, "etcd", argv.get(member)!, {
      logFile: join(dataRoot, `${member.name}.log`),
    });
  };

  const stopAllMembers = async () => {
    await Promise.all(members.map((m) => stop(m.process)));
  };
  try {
    const leader = await awaitEtcdLeader(members, 30_000);
    return {
      members,
      leader,
      version,
      restart,
      awaitLeader: (timeoutMs = 30_000) => awaitEtcdLeader(members, timeoutMs),
      stop: stopAllMembers,
    };
  } catch (err) {
    await stopAllMembers();
    throw err;
  }
}

/** Waits until every member (all must be running) names the same leader through the v3 JSON gateway. */
async function awaitEtcdLeader(members: readonly EtcdMember[], timeoutMs: number): Promise<EtcdMember> {
  const agent = keepAliveAgent(members.length);
  try {
    return await waitFor(
      "etcd members to agree on a leader",
      async () => {
        const statuses: MemberStatus[] = [];
        for (const m of members) {
          if (!isRunning(m.process)) throw new GiveUp(`${m.name} exited: ${m.process.tail()}`);
          const res = await httpOk(agent, m.client, "POST", "/v3/maintenance/status", "{}");
          statuses.push(JSON.parse(res.body.toString()) as MemberStatus);
        }
        const leaderId = statuses[0]?.leader;
        if (!leaderId || leaderId === "0" || !statuses.every((s) => s.leader === leaderId)) return undefined;
        const index = statuses.findIndex((s) => s.header?.member_id === leaderId);
        return index >= 0 ? members[index] : undefined;
      },
      timeoutMs,
      200,
    );
  } finally {
    agent.destroy();
  }
}
