import { chmod, chown, lstat, readFile, stat, unlink } from "node:fs/promises";
import type { Server } from "node:http";
import { dirname } from "node:path";
import type { UnixSocketSettings } from "./config/unix-sockets.js";

/**
 * Listens on a unix domain socket with the configured owner and mode. A socket left by an earlier run is
 * replaced, as Consul does; any other kind of file at the path is refused rather than deleted.
 */
export async function listenUnixSocket(
  server: Server,
  path: string,
  settings: UnixSocketSettings,
  onReplace: (path: string) => void,
): Promise<void> {
  // Node reports a missing folder as "permission denied": say what is wrong.
  const folder = await stat(dirname(path)).catch(() => undefined);
  if (!folder?.isDirectory()) throw new Error(`folder ${dirname(path)} does not exist`);
  const existing = await lstat(path).catch((err: NodeJS.ErrnoException) => {
    if (err.code === "ENOENT") return undefined;
    throw err;
  });
  if (existing !== undefined) {
    if (!existing.isSocket()) throw new Error(`${path} exists and is not a socket`);
    onReplace(path);
    await unlink(path);
  }
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(path, () => {
      server.off("error", reject);
      resolve();
    });
  });
  try {
    await setSocketPermissions(path, settings);
  } catch (err) {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw new Error(`Failed setting up socket: ${(err as Error).message}`);
  }
}

async function setSocketPermissions(path: string, settings: UnixSocketSettings): Promise<void> {
  if (settings.user !== undefined || settings.group !== undefined) {
    const uid = settings.user === undefined ? -1 : await userId(settings.user);
    await chown(path, uid, settings.group ?? -1);
  }
  // After chown, which may clear set-id bits.
  if (settings.mode !== undefined) await chmod(path, settings.mode);
}

/** A numeric ID as is; a name through /etc/passwd (Node has no getpwnam). */
async function userId(user: string): Promise<number> {
  if (/^\d+$/.test(user)) return Number(user);
  const passwd = await readFile("/etc/passwd", "utf8").catch(() => "");
  for (const line of passwd.split("\n")) {
    const [name, , uid] = line.split(":");
    if (name === user && uid !== undefined && /^\d+$/.test(uid)) return Number(uid);
  }
  throw new Error(`failed to look up user ${user}: unknown user`);
}
