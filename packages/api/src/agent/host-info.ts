import { readdir, readFile, statfs } from "node:fs/promises";
import os from "node:os";

/**
 * `/v1/agent/host` as Consul answers it (its debug.CollectHostInfo, gopsutil's field names): Memory, CPU,
 * Host, Disk (of `/`), CollectionTime (Unix nanoseconds) and Errors. A part that cannot be read here (not
 * Linux, no /proc) is left null and its reason listed in Errors, as Consul does.
 */
export async function collectHostInfo(): Promise<Record<string, unknown>> {
  const errors: string[] = [];
  const attempt = async <T>(what: string, read: () => Promise<T>): Promise<T | null> => {
    try {
      return await read();
    } catch (err) {
      errors.push(`${what}: ${err instanceof Error ? err.message : String(err)}`);
      return null;
    }
  };
  const [memory, cpu, host, disk] = await Promise.all([
    attempt("memory", memoryInfo),
    attempt("cpu", cpuInfo),
    attempt("host", hostInfo),
    attempt("disk", () => diskInfo("/")),
  ]);
  return {
    Memory: memory,
    CPU: cpu,
    Host: host,
    Disk: disk,
    CollectionTime: Number(BigInt(Date.now()) * 1_000_000n),
    Errors: errors.length > 0 ? errors : null,
  };
}

/** /proc/meminfo in bytes, under gopsutil's VirtualMemoryStat names. */
async function memoryInfo(): Promise<Record<string, number>> {
  const kb = new Map<string, number>();
  for (const line of (await readFile("/proc/meminfo", "utf8")).split("\n")) {
    const m = /^([^:]+):\s+(\d+)(\s+kB)?/.exec(line);
    if (m) kb.set(m[1]!, Number(m[2]) * (m[3] ? 1024 : 1));
  }
  const get = (name: string) => kb.get(name) ?? 0;
  const total = get("MemTotal");
  const free = get("MemFree");
  const buffers = get("Buffers");
  const cached = get("Cached") + get("SReclaimable");
  const available = kb.get("MemAvailable") ?? free + buffers + cached;
  const used = total - free - buffers - cached;
  return {
    total,
    available,
    used,
    usedPercent: total > 0 ? (used / total) * 100 : 0,
    free,
    active: get("Active"),
    inactive: get("Inactive"),
    wired: 0,
    laundry: 0,
    buffers,
    cached,
    writeBack: get("Writeback"),
    dirty: get("Dirty"),
    writeBackTmp: get("WritebackTmp"),
    shared: get("Shmem"),
    slab: get("Slab"),
    sreclaimable: get("SReclaimable"),
    sunreclaim: get("SUnreclaim"),
    pageTables: get("PageTables"),
    swapCached: get("SwapCached"),
    commitLimit: get("CommitLimit"),
    committedAS: get("Committed_AS"),
    highTotal: get("HighTotal"),
    highFree: get("HighFree"),
    lowTotal: get("LowTotal"),
    lowFree: get("LowFree"),
    swapTotal: get("SwapTotal"),
    swapFree: get("SwapFree"),
    mapped: get("Mapped"),
    vmallocTotal: get("VmallocTotal"),
    vmallocUsed: get("VmallocUsed"),
    vmallocChunk: get("VmallocChunk"),
    hugePagesTotal: get("HugePages_Total"),
    hugePagesFree: get("HugePages_Free"),
    hugePagesRsvd: get("HugePages_Rsvd"),
    hugePagesSurp: get("HugePages_Surp"),
    hugePageSize: get("Hugepagesize"),
    anonHugePages: get("AnonHugePages"),
  };
}

/** One entry per logical processor, from /proc/cpuinfo, under gopsutil's InfoStat names. */
async function cpuInfo(): Promise<Record<string, unknown>[]> {
  const text = await readFile("/proc/cpuinfo", "utf8");
  const out: Record<string, unknown>[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const f = new Map<string, string>();
    for (const line of block.split("\n")) {
      const i = line.indexOf(":");
      if (i > 0) f.set(line.slice(0, i).trim(), line.slice(i + 1).trim());
    }
    if (!f.has("processor")) continue;
    out.push({
      cpu: Number(f.get("processor")) || 0,
      vendorId: f.get("vendor_id") ?? "",
      family: f.get("cpu family") ?? "",
      model: f.get("model") ?? "",
      stepping: Number(f.get("stepping")) || 0,
      physicalId: f.get("physical id") ?? "",
      coreId: f.get("core id") ?? "",
      cores: 1,
      modelName: f.get("model name") ?? "",
      mhz: Number(f.get("cpu MHz")) || 0,
      cacheSize: Number.parseInt(f.get("cache size") ?? "0", 10) || 0,
      flags: (f.get("flags") ?? "").split(/\s+/).filter((x) => x !== ""),
      microcode: f.get("microcode") ?? "",
    });
  }
  return out;
}

async function hostInfo(): Promise<Record<string, unknown>> {
  const uptime = Math.floor(os.uptime());
  const release = await readFile("/etc/os-release", "utf8").catch(() => "");
  const osRelease = (key: string) => new RegExp(`^${key}="?([^"\\n]*)"?`, "m").exec(release)?.[1] ?? "";
  const platform = osRelease("ID");
  const procs = await readdir("/proc")
    .then((names) => names.filter((n) => /^\d+$/.test(n)).length)
    .catch(() => 0);
  const hostId = (
    (await readFile("/sys/class/dmi/id/product_uuid", "utf8").catch(() => "")) ||
    (await readFile("/etc/machine-id", "utf8").catch(() => ""))
  )
    .trim()
    .toLowerCase();
  return {
    hostname: os.hostname(),
    uptime,
    bootTime: Math.floor(Date.now() / 1000) - uptime,
    procs,
    os: os.platform(),
    platform,
    platformFamily: osRelease("ID_LIKE").split(" ")[0] || platform,
    platformVersion: osRelease("VERSION_ID"),
    kernelVersion: os.release(),
    kernelArch: os.machine(),
    virtualizationSystem: "",
    virtualizationRole: "",
    hostId: /^[0-9a-f]{32}$/.test(hostId)
      ? `${hostId.slice(0, 8)}-${hostId.slice(8, 12)}-${hostId.slice(12, 16)}-${hostId.slice(16, 20)}-${hostId.slice(20)}`
      : hostId,
  };
}

/** gopsutil's UsageStat of `path`. */
async function diskInfo(path: string): Promise<Record<string, unknown>> {
  const s = await statfs(path);
  const total = s.blocks * s.bsize;
  const free = s.bavail * s.bsize;
  const used = (s.blocks - s.bfree) * s.bsize;
  const inodesUsed = s.files - s.ffree;
  const mounts = await readFile("/proc/mounts", "utf8").catch(() => "");
  const fstype = mounts
    .split("\n")
    .map((l) => l.split(" "))
    .findLast((f) => f[1] === path)?.[2];
  return {
    path,
    fstype: fstype ?? "",
    total,
    free,
    used,
    usedPercent: used + free > 0 ? (used / (used + free)) * 100 : 0,
    inodesTotal: s.files,
    inodesUsed,
    inodesFree: s.ffree,
    inodesUsedPercent: s.files > 0 ? (inodesUsed / s.files) * 100 : 0,
  };
}
