// Which TCP ports a process is connected to, from /proc (Linux): its socket inodes matched against the
// kernel's table of established connections. Lets a harness see which server a client agent tunnels to
// without the agent exposing it.

import { readdirSync, readFileSync, readlinkSync } from "node:fs";

const ESTABLISHED = "01";

function socketInodes(pid: number): Set<string> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match?.[1]) inodes.add(match[1]);
    } catch {
      // The descriptor closed between listing and reading.
    }
  }
  return inodes;
}

/** Remote ports of the established TCP connections that `pid` holds (IPv4 and IPv6). */
export function connectedPorts(pid: number): Set<number> {
  const inodes = socketInodes(pid);
  const ports = new Set<number>();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
      const fields = line.trim().split(/\s+/);
      const [remote, state, inode] = [fields[2], fields[3], fields[9]];
      if (!remote || state !== ESTABLISHED || !inode || !inodes.has(inode)) continue;
      ports.add(Number.parseInt(remote.slice(remote.lastIndexOf(":") + 1), 16));
    }
  }
  return ports;
}
