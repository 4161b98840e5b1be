// Debian packages the benchmarks compare against or drive load with (etcd-server, wrk): installed with
// apt-get when missing, so a bench run on a fresh machine fails loudly only when the install itself fails.
import { spawnSync } from "node:child_process";

/** Installs `pkg` with apt-get (running `apt-get update` once if the first try fails); throws if it cannot. */
export function installDebianPackage(pkg: string, log: (line: string) => void = console.error): void {
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "-q", pkg], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    }).status === 0;
  log(`${pkg} not found: apt-get install -y ${pkg}`);
  if (install()) return;
  log("install failed: apt-get update, then retry");
  spawnSync("apt-get", ["update", "-q"], { stdio: ["ignore", "ignore", "inherit"] });
  if (!install()) throw new Error(`could not install ${pkg} with apt-get`);
}
