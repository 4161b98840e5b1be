import type { ClientGone } from "../http/client-gone.js";
import { DEFAULT_WAIT_MS, MAX_WAIT_MS } from "../http/read-options.js";

/**
 * Hash-based blocking, as Consul's agent endpoints do it: while `read()` still gives the hash the client
 * sent, wait for a change (or the wait time, or the client leaving), then answer with what is current.
 */
export async function waitForNewHash<T extends { hash: string }>(
  read: () => T,
  known: string,
  waitNs: bigint | undefined,
  changed: () => Promise<void>,
  onClientGone: ClientGone,
): Promise<T> {
  let current = read();
  if (current.hash !== known) return current;
  const waitMs = Math.min(
    waitNs === undefined || waitNs <= 0n ? DEFAULT_WAIT_MS : Number(waitNs) / 1e6,
    MAX_WAIT_MS,
  );
  const deadline = Date.now() + waitMs;
  let gone = false;
  let wake: () => void = () => {};
  const unsubscribe = onClientGone(() => {
    gone = true;
    wake();
  });
  try {
    while (current.hash === known && !gone && Date.now() < deadline) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        changed(),
        new Promise<void>((resolve) => {
          wake = resolve;
          timer = setTimeout(resolve, deadline - Date.now());
        }),
      ]);
      clearTimeout(timer);
      current = read();
    }
  } finally {
    unsubscribe();
  }
  return current;
}
