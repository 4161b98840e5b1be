/** A sleep that can be cut short: retry loops wait on it, and stop (or news worth acting on) wakes them. */
export class Pause {
  private wakeNow: (() => void) | undefined;

  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wakeNow = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Ends the current wait, if any. */
  wake(): void {
    this.wakeNow?.();
  }
}
