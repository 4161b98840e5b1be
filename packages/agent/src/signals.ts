/**
 * Resolves with the name of the first SIGINT or SIGTERM. A second signal while shutting down exits at once,
 * as Consul does for an impatient operator. SIGHUP (Consul's configuration reload) is reported, not fatal.
 */
export function shutdownSignal(
  onForce: (signal: NodeJS.Signals) => void,
  onHangup: () => void,
): {
  received: Promise<NodeJS.Signals>;
  dispose: () => void;
} {
  let first: NodeJS.Signals | undefined;
  let resolve: (s: NodeJS.Signals) => void = () => {};
  const received = new Promise<NodeJS.Signals>((r) => {
    resolve = r;
  });
  const handler = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = signal;
      resolve(signal);
    } else {
      onForce(signal);
    }
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  process.on("SIGHUP", onHangup);
  return {
    received,
    dispose: () => {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
      process.off("SIGHUP", onHangup);
    },
  };
}
