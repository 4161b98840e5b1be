import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CheckDefinition, LocalCheck, LocalService } from "@cairn/api";

/** A service registered through the API, as kept on disk. */
export interface PersistedService {
  readonly Service: LocalService;
  readonly Token: string;
}

/** A check registered through the API (or a maintenance check), as kept on disk. */
export interface PersistedCheck {
  readonly Check: LocalCheck;
  /** Undefined for checks the agent does not run (maintenance). */
  readonly Definition: CheckDefinition | undefined;
  readonly Token: string;
}

/** A TTL check's last update, so that a restart within the TTL keeps its status (as Consul does). */
export interface PersistedCheckState {
  readonly Status: LocalCheck["Status"];
  readonly Output: string;
  /** When the TTL runs out (ms since the epoch). */
  readonly Expires: number;
}

/**
 * Services and checks registered through the API survive a restart, as in Consul: one JSON file per entry
 * under `<data_dir>/services` and `<data_dir>/checks`, named by a hash of its ID (IDs may hold `/`), each
 * written to a temporary file and renamed so a crash never leaves half a file. Without a data directory
 * (dev mode) nothing is kept.
 */
export class LocalPersistence {
  private readonly servicesDir: string | undefined;
  private readonly checksDir: string | undefined;

  constructor(dataDir: string | undefined) {
    this.servicesDir = dataDir === undefined ? undefined : join(dataDir, "services");
    this.checksDir = dataDir === undefined ? undefined : join(dataDir, "checks");
  }

  saveService(entry: PersistedService): void {
    write(this.servicesDir, entry.Service.ID, entry);
  }

  removeService(id: string): void {
    remove(this.servicesDir, id);
  }

  saveCheck(entry: PersistedCheck): void {
    write(this.checksDir, entry.Check.CheckID, entry);
  }

  removeCheck(id: string): void {
    remove(this.checksDir, id);
    remove(this.stateDir, id);
  }

  saveCheckState(id: string, state: PersistedCheckState): void {
    write(this.stateDir, id, state);
  }

  /** The TTL state kept for a check; undefined when none (or unreadable). */
  checkState(id: string): PersistedCheckState | undefined {
    if (this.stateDir === undefined) return undefined;
    try {
      return JSON.parse(readFileSync(join(this.stateDir, fileName(id)), "utf8")) as PersistedCheckState;
    } catch {
      return undefined;
    }
  }

  private get stateDir(): string | undefined {
    return this.checksDir === undefined ? undefined : join(this.checksDir, "state");
  }

  /** Everything kept; unreadable files are reported through `onBadFile` and skipped. */
  load(onBadFile: (path: string, reason: string) => void): {
    services: PersistedService[];
    checks: PersistedCheck[];
  } {
    return {
      services: readAll<PersistedService>(this.servicesDir, onBadFile),
      checks: readAll<PersistedCheck>(this.checksDir, onBadFile),
    };
  }
}

function fileName(id: string): string {
  return createHash("md5").update(id).digest("hex");
}

function write(dir: string | undefined, id: string, entry: unknown): void {
  if (dir === undefined) return;
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, fileName(id));
  writeFileSync(`${path}.tmp`, JSON.stringify(entry), { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

function remove(dir: string | undefined, id: string): void {
  if (dir === undefined) return;
  rmSync(join(dir, fileName(id)), { force: true });
}

function readAll<T>(dir: string | undefined, onBadFile: (path: string, reason: string) => void): T[] {
  if (dir === undefined) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: T[] = [];
  for (const name of names.sort()) {
    if (name.endsWith(".tmp") || name === "state") continue;
    const path = join(dir, name);
    try {
      out.push(JSON.parse(readFileSync(path, "utf8")) as T);
    } catch (err) {
      onBadFile(path, (err as Error).message);
    }
  }
  return out;
}
