// DNS benchmark (not a test). A Cairn server agent (and a second one with dns_config.use_cache) answering `web.service.consul` (100 healthy instances)
// on its DNS port, and dnsmasq (Debian) answering the same A and SRV records from a hosts file and srv-host
// lines, the floor any DNS server should reach, measured in the same run, taking turns:
//   saturation   dnsperf (Debian) with EDNS (4096-byte buffers: A answers carry all 100 records; SRV answers
//                are cut to what fits, with TC, on both servers), as many queries as it can keep outstanding,
//                for A and for SRV: queries per second, and the server's CPU per query
//   latency      dnsperf at a fixed rate, half of each server's own saturation rate, each query's latency
//                from its verbose output: p50 / p99 / lost
// Goal (issue 14): at least half of dnsmasq's throughput, p99 under 5 ms at 50% of saturation.
//
//   node --import tsx scripts/bench/dns.ts [--seconds 5] [--instances 100] [--rounds 2] [--keep] [--profile DIR]

import { execFile } from "node:child_process";
import dgram from "node:dgram";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import * as packet from "dns-packet";
import { type AgentProcess, serverFlags, spawnAgent } from "../lib/agent.js";
import { http } from "../lib/http.js";
import { freePorts } from "../lib/ports.js";
import { type Spawned, spawnTracked, stopAll } from "../lib/processes.js";
import { waitFor } from "../lib/wait.js";
import { useBuiltAgents } from "./lib/built.js";
import { Latencies } from "./lib/latency.js";
import { median } from "./lib/median.js";
import { cpuSeconds } from "./lib/proc-stats.js";
import { formatMs, formatRate, formatRatio, markdownTable } from "./lib/table.js";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    instances: { type: "string", default: "100" },
    rounds: { type: "string", default: "2" },
    keep: { type: "boolean", default: false },
    // V8 CPU profiles of the Cairn agents (written when they stop), for finding the hot path.
    profile: { type: "string" },
  },
});
const seconds = Number(values.seconds);
const instances = Number(values.instances);
const rounds = Number(values.rounds);
const NAME = "web.service.consul";
const log = (line: string) => console.error(`[dns-bench] ${line}`);
const ip = (i: number) => `10.20.${Math.floor(i / 250)}.${(i % 250) + 1}`;

function run(command: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(command, args, { timeout: timeoutMs, maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${command}: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

async function ensureTools(): Promise<void> {
  const missing = [];
  for (const [tool, pkg] of [
    ["dnsperf", "dnsperf"],
    ["dnsmasq", "dnsmasq-base"],
  ] as const) {
    if (!(await run("sh", ["-c", `command -v ${tool}`], 5_000).catch(() => ""))) missing.push(pkg);
  }
  if (missing.length === 0) return;
  log(`installing ${missing.join(", ")}`);
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  await run(
    "sh",
    [
      "-c",
      `${sudo.join(" ")} apt-get update -qq && ${sudo.join(" ")} apt-get install -y -qq ${missing.join(" ")}`,
    ],
    600_000,
  );
}

async function startCairn(
  dir: string,
  name: string,
  hcl: string,
): Promise<{ agent: AgentProcess; dns: number }> {
  const [httpPort, rpc, lan, dns] = await freePorts(4);
  const agent = spawnAgent({
    name,
    ports: { http: httpPort!, server: rpc!, serfLan: lan! },
    flags: [
      ...serverFlags({ name, dataDir: join(dir, name), bootstrapExpect: 1, logLevel: "warn" }),
      "-dns-port",
      String(dns),
      "-hcl",
      hcl,
    ],
    logFile: join(dir, `${name}.log`),
    nodeArgs: values.profile ? ["--cpu-prof", `--cpu-prof-dir=${join(values.profile, name)}`] : [],
  });
  await waitFor(
    "a leader",
    async () => {
      const r = await http(`${agent.url}/v1/status/leader`).catch(() => undefined);
      return r?.status === 200 && r.text !== '""' ? true : undefined;
    },
    60_000,
  );
  for (let i = 0; i < instances; i++) {
    const body = JSON.stringify({
      Node: `node-${i}`,
      Address: ip(i),
      Service: { ID: "web", Service: "web", Port: 8000 + i },
      Check: { CheckID: "alive", Name: "alive", Status: "passing", ServiceID: "web" },
    });
    const r = await http(`${agent.url}/v1/catalog/register`, "PUT", body);
    if (r.status !== 200) throw new Error(`register: ${r.status} ${r.text}`);
  }
  return { agent, dns: dns! };
}

async function startDnsmasq(dir: string): Promise<{ process: Spawned; port: number }> {
  const [port] = await freePorts(1);
  const hosts = Array.from({ length: instances }, (_, i) => `${ip(i)} ${NAME}`).join("\n");
  await writeFile(join(dir, "hosts"), `${hosts}\n`);
  const srv = Array.from(
    { length: instances },
    (_, i) => `srv-host=${NAME},node-${i}.node.dc1.consul,${8000 + i},1,1`,
  );
  await writeFile(join(dir, "dnsmasq.conf"), `${srv.join("\n")}\n`);
  const process = spawnTracked("dnsmasq", "dnsmasq", [
    "--keep-in-foreground",
    "--no-resolv",
    "--no-hosts",
    `--addn-hosts=${join(dir, "hosts")}`,
    `--conf-file=${join(dir, "dnsmasq.conf")}`,
    "--listen-address=127.0.0.1",
    "--bind-interfaces",
    `--port=${port}`,
    "--pid-file=",
    "--user=",
    "--cache-size=10000",
    // dnsmasq 2.90 caps EDNS answers at 1232 bytes unless told otherwise; Cairn honours the asker's 4096.
    "--edns-packet-max=4096",
  ]);
  return { process, port: port! };
}

/** A DNS answer's record count, size and TC bit, or undefined when nothing came back (to check both servers agree). */
async function answerShape(port: number, type: "A" | "SRV"): Promise<string | undefined> {
  const s = dgram.createSocket("udp4");
  try {
    return await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), 2_000);
      s.on("message", (m) => {
        clearTimeout(timer);
        const d = packet.decode(m);
        const tc = (d.flags ?? 0) & packet.TRUNCATED_RESPONSE ? ", TC" : "";
        resolve(`${d.answers?.length} answers, ${d.additionals?.length} additionals, ${m.length} bytes${tc}`);
      });
      s.send(query(1, type, true), port, "127.0.0.1");
    });
  } finally {
    s.close();
  }
}

function query(id: number, type: "A" | "SRV", edns: boolean): Buffer {
  return packet.encode({
    type: "query",
    id,
    flags: packet.RECURSION_DESIRED,
    questions: [{ name: NAME, type }],
    additionals: edns ? [{ type: "OPT", name: ".", udpPayloadSize: 4096 } as packet.Answer] : [],
  });
}

async function saturation(port: number, type: "A" | "SRV", dir: string): Promise<number> {
  const data = join(dir, `q-${type}.txt`);
  await writeFile(data, `${NAME} ${type}\n`);
  const out = await run(
    "dnsperf",
    ["-s", "127.0.0.1", "-p", String(port), "-d", data, "-l", String(seconds), "-e", "-q", "64", "-c", "4"],
    (seconds + 30) * 1000,
  );
  const qps = /Queries per second:\s+([0-9.]+)/.exec(out)?.[1];
  if (!qps) throw new Error(`dnsperf printed no rate:\n${out}`);
  return Number(qps);
}

interface FixedRate {
  sent: number;
  latencies: Latencies;
}

/** dnsperf at a fixed rate (-Q), every query's latency from its verbose lines (it prints no percentiles). */
async function fixedRate(port: number, type: "A" | "SRV", rate: number, dir: string): Promise<FixedRate> {
  const data = join(dir, `q-${type}.txt`);
  const out = await run(
    "dnsperf",
    [
      "-s",
      "127.0.0.1",
      "-p",
      String(port),
      "-d",
      data,
      "-l",
      String(seconds),
      "-e",
      "-Q",
      String(Math.max(1, Math.round(rate))),
      "-v",
    ],
    (seconds + 30) * 1000,
  );
  const latencies = new Latencies();
  for (const m of out.matchAll(/^> \S+ \S+ \S+ ([0-9.]+)$/gm)) latencies.record(Number(m[1]) * 1000);
  const sent = Number(/Queries sent:\s+(\d+)/.exec(out)?.[1] ?? latencies.count);
  return { sent, latencies };
}

async function main(): Promise<void> {
  await ensureTools();
  const dir = await mkdtemp(join(tmpdir(), "cairn-dns-bench-"));
  await mkdir(join(dir, "s1"), { recursive: true });
  try {
    log(`starting two Cairn servers (default, use_cache) with ${instances} instances of web, and dnsmasq`);
    const cairn = await startCairn(dir, "s1", "dns_config { use_cache = false }");
    const cached = await startCairn(dir, "s2", "dns_config { use_cache = true }");
    const dnsmasq = await startDnsmasq(dir);
    const servers = [
      { label: "Cairn", port: cairn.dns, pid: cairn.agent.process.pid },
      { label: "Cairn use_cache", port: cached.dns, pid: cached.agent.process.pid },
      { label: "dnsmasq", port: dnsmasq.port, pid: dnsmasq.process.pid },
    ];
    for (const type of ["A", "SRV"] as const) {
      for (const s of servers) {
        const shape = await waitFor(`${s.label} answering ${type}`, () => answerShape(s.port, type), 30_000);
        log(`${s.label} ${type}: ${shape}`);
      }
    }
    const rows: string[][] = [];
    const summary: Record<string, { qps: number; p99: number; cpuPerQuery: number }> = {};
    for (const type of ["A", "SRV"] as const) {
      const qps: Record<string, number[]> = Object.fromEntries(servers.map((x) => [x.label, []]));
      const cpu: Record<string, number[]> = Object.fromEntries(servers.map((x) => [x.label, []]));
      for (let round = 0; round < rounds; round++) {
        // Taking turns, the order flipping each round, so drifting load on the machine hits all.
        for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
          const before = cpuSeconds(s.pid);
          const rate = await saturation(s.port, type, dir);
          cpu[s.label]!.push((cpuSeconds(s.pid) - before) / seconds);
          qps[s.label]!.push(rate);
          log(
            `${type} ${s.label} round ${round + 1}: ${rate.toFixed(0)} q/s (load ${loadavg()[0]!.toFixed(1)})`,
          );
        }
      }
      for (const s of servers) {
        const saturated = median(qps[s.label]!);
        const half = await fixedRate(s.port, type, saturated / 2, dir);
        const p50 = half.latencies.percentile(50);
        const p99 = half.latencies.percentile(99);
        const lost = half.sent - half.latencies.count;
        const cpuPerQuery = median(cpu[s.label]!) / saturated;
        summary[`${s.label} ${type}`] = { qps: saturated, p99, cpuPerQuery };
        rows.push([
          `${type} ${NAME}`,
          s.label,
          formatRate(saturated),
          median(cpu[s.label]!).toFixed(2),
          // On shared cores the rate follows the CPU share a server gets; its cost per answer does not.
          (cpuPerQuery * 1e6).toFixed(1),
          formatRate(saturated / 2),
          formatMs(p50),
          formatMs(p99),
          `${lost} / ${half.sent}`,
        ]);
      }
    }
    console.log(
      `DNS, ${instances} healthy instances, EDNS answers with every record, Cairn server agents vs dnsmasq ${
        /Dnsmasq version (\S+)/.exec(await run("dnsmasq", ["--version"], 5_000))?.[1] ?? ""
      } (same run, turns alternating, ${rounds} rounds of ${seconds} s; median saturation):\n`,
    );
    console.log(
      markdownTable(
        [
          "query",
          "server",
          "saturation q/s (dnsperf)",
          "server cores",
          "CPU µs/query",
          "fixed rate q/s",
          "p50 ms",
          "p99 ms",
          "lost",
        ],
        rows,
      ),
    );
    for (const type of ["A", "SRV"]) {
      const d = summary[`dnsmasq ${type}`]!;
      for (const label of ["Cairn", "Cairn use_cache"]) {
        const c = summary[`${label} ${type}`]!;
        console.log(
          `\n${type}, ${label}: throughput ${formatRatio(c.qps, d.qps)} dnsmasq's (goal ≥ 0.5×), CPU per answer ${formatRatio(c.cpuPerQuery, d.cpuPerQuery)} dnsmasq's, p99 at half saturation ${formatMs(c.p99)} ms (goal < 5 ms)`,
        );
      }
    }
  } finally {
    await stopAll();
    if (values.keep) log(`kept ${dir}`);
    else await rm(dir, { recursive: true, force: true });
  }
}

useBuiltAgents();
await main();
