import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { listenUnixSocket } from "../src/unix-socket-listener.js";

const none = { mode: undefined, user: undefined, group: undefined };
let dir: string;
let servers: Server[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cairn-unix-"));
  servers = [];
});
afterEach(async () => {
  await Promise.all(
    servers.map((s) => new Promise<void>((resolve) => (s.listening ? s.close(() => resolve()) : resolve()))),
  );
  rmSync(dir, { recursive: true, force: true });
});

function server(): Server {
  const s = createServer((_req, res) => res.end("ok"));
  servers.push(s);
  return s;
}

function get(socketPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: "/" }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve(body));
    });
    req.once("error", reject);
    req.end();
  });
}

describe("listenUnixSocket", () => {
  it("applies the mode and owner (by ID or by name), and replaces a stale socket", async () => {
    const path = join(dir, "a.sock");
    const replaced: string[] = [];
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    await listenUnixSocket(server(), path, { mode: 0o600, user: String(uid), group: gid }, (p) =>
      replaced.push(p),
    );
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(path).uid).toBe(uid);
    expect(await get(path)).toBe("ok");
    expect(replaced).toEqual([]);

    // A second listener over the first one's socket (as after a crash): replaced, with the new mode.
    const first = servers[0]!;
    const stale = join(dir, "stale.sock");
    await listenUnixSocket(server(), stale, none, () => {});
    await listenUnixSocket(server(), stale, { ...none, mode: 0o660 }, (p) => replaced.push(p));
    expect(replaced).toEqual([stale]);
    expect(statSync(stale).mode & 0o777).toBe(0o660);
    expect(await get(stale)).toBe("ok");
    expect(first.listening).toBe(true);

    if (uid === 0) {
      const byName = join(dir, "root.sock");
      await listenUnixSocket(server(), byName, { ...none, user: "root" }, () => {});
      expect(statSync(byName).uid).toBe(0);
    }
  });

  it("refuses a path that is not a socket, an unknown user, and a missing folder, leaving nothing behind", async () => {
    const file = join(dir, "precious");
    writeFileSync(file, "data");
    await expect(listenUnixSocket(server(), file, none, () => {})).rejects.toThrow(
      `${file} exists and is not a socket`,
    );
    expect(statSync(file).isFile()).toBe(true);

    const path = join(dir, "u.sock");
    const s = server();
    await expect(
      listenUnixSocket(s, path, { ...none, user: "no-such-user-cairn" }, () => {}),
    ).rejects.toThrow("Failed setting up socket: failed to look up user no-such-user-cairn: unknown user");
    expect(s.listening).toBe(false);
    expect(() => statSync(path)).toThrow(/ENOENT/);

    await expect(listenUnixSocket(server(), join(dir, "missing", "x.sock"), none, () => {})).rejects.toThrow(
      `folder ${join(dir, "missing")} does not exist`,
    );
  });
});
