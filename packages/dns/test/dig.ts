// `dig` (Debian dnsutils) as the tests' DNS client: runs one lookup and parses its sections.
import { execFile } from "node:child_process";

export interface DigRecord {
  name: string;
  ttl: number;
  type: string;
  data: string;
}

export interface DigResult {
  status: string;
  flags: string[];
  answer: DigRecord[];
  authority: DigRecord[];
  additional: DigRecord[];
  /** UDP or TCP, as dig reports the server line. */
  transport: string;
  raw: string;
}

/** `dig @127.0.0.1 -p <port> <args...>`; +tcp, +ignore, +bufsize=... pass through. */
export function dig(port: number, ...args: string[]): Promise<DigResult> {
  return new Promise((resolve, reject) => {
    execFile(
      "dig",
      ["@127.0.0.1", "-p", String(port), "+tries=1", "+time=10", ...args],
      { timeout: 30_000 },
      (err, stdout) => {
        if (err && stdout === "") return reject(err);
        resolve(parse(stdout));
      },
    );
  });
}

function parse(raw: string): DigResult {
  const status = /status: ([A-Z]+)/.exec(raw)?.[1] ?? "";
  const flags = (/;; flags: ([a-z ]+);/.exec(raw)?.[1] ?? "").trim().split(/\s+/);
  const section = (title: string): DigRecord[] => {
    const start = raw.indexOf(`;; ${title} SECTION:`);
    if (start < 0) return [];
    const lines = raw.slice(start).split("\n").slice(1);
    const out: DigRecord[] = [];
    for (const line of lines) {
      if (line.trim() === "" || line.startsWith(";")) break;
      const [name = "", ttl = "0", , type = "", ...data] = line.split(/\s+/);
      out.push({ name, ttl: Number(ttl), type, data: data.join(" ") });
    }
    return out;
  };
  return {
    status,
    flags,
    answer: section("ANSWER"),
    authority: section("AUTHORITY"),
    additional: section("ADDITIONAL"),
    transport: /\((UDP|TCP)\)/.exec(raw)?.[1] ?? "",
    raw,
  };
}

/** Whether dig is installed (.ci/run installs dnsutils when it is not). */
export function hasDig(): Promise<boolean> {
  return new Promise((resolve) => execFile("dig", ["-v"], (err) => resolve(!err)));
}
