/**
 * A loop that runs a pass, waits, and runs it again until stopped; a wake() during the wait
 * starts the next pass at once, and one during a pass makes the next pass follow it without the
 * wait (something happened that the pass under way may have missed).
 */
export interface PollLoop {
  start(): void;
  /** Ends the loop after the pass under way; resolves when it has ended. */
  stop(): Promise<void>;
  wake(): void;
}

/** Creates the loop; a pass that throws is reported to `onError` and the loop goes on. */
export function createPollLoop(
  pass: () => Promise<void>,
  pollMs: number,
  onError: (error: unknown) => void,
): PollLoop {
  let running = false;
  let loop: Promise<void> | null = null;
  let wakeUp: (() => void) | null = null;
  let woken = false;
  return {
    start() {
      if (running) return;
      running = true;
      loop = (async () => {
        while (running) {
          try {
            await pass();
          } catch (error) {
            onError(error);
          }
          if (!running) break;
          if (woken) {
            woken = false;
            continue;
          }
          await new Promise<void>((resume) => {
            const timer = setTimeout(resume, pollMs);
            wakeUp = () => {
              clearTimeout(timer);
              resume();
            };
          });
          wakeUp = null;
        }
      })();
    },
    async stop() {
      running = false;
      wakeUp?.();
      await loop;
    },
    wake() {
      if (wakeUp) wakeUp();
      else woken = true;
    },
  };
}
