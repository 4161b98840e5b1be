// A description of the machine a benchmark ran on, for the header of a results file.

import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem } from "node:os";
import { basename } from "node:path";

function osName(): string {
  try {
    const text = readFileSync("/etc/os-release", "utf8");
    return /^PRETTY_NAME="?([^"\n]*)"?/m.exec(text)?.[1] ?? "Linux";
  } catch {
    return process.platform;
  }
}

/** Device, file system and size of the disk holding `dir`, and whether it is rotational. */
function disk(dir: string): string {
  try {
    const out = execFileSync("df", ["-hT", dir], { encoding: "utf8" }).trim().split("\n")[1] ?? "";
    const [device = "?", fsType = "?", size = "?"] = out.split(/\s+/);
    const block = basename(device).replace(/\d+$/, "");
    const rotationalFile = `/sys/block/${block}/queue/rotational`;
    const kind = existsSync(rotationalFile)
      ? readFileSync(rotationalFile, "utf8").trim() === "1"
        ? "rotational"
        : "non-rotational"
      : "unknown type";
    return `${device} (${fsType}, ${size}, ${kind})`;
  } catch {
    return "unknown";
  }
}

export function describeMachine(dataDir: string): Array<[string, string]> {
  const cores = cpus();
  return [
    ["CPU", `${cores[0]?.model.trim() ?? "unknown"}`],
    ["cores", String(cores.length)],
    ["memory", `${(totalmem() / 2 ** 30).toFixed(1)} GiB`],
    ["disk (temp dirs)", disk(dataDir)],
    ["OS", `${osName()}, kernel ${release()}`],
    ["node", process.version],
    [
      "load average at start",
      loadavg()
        .map((l) => l.toFixed(2))
        .join(", "),
    ],
  ];
}
