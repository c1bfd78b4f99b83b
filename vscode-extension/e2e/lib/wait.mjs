// Waiting without fixed sleeps: every wait here ends as soon as its condition holds and fails with a
// message naming what did not happen once its (generous, finite) time-out passes.

/** Default time-out for UI conditions; the machine has 2 busy cores, so it is long but finite. */
export const UI_TIMEOUT = 60_000;

/**
 * Poll `check` until it returns a truthy value and return that value. Used for conditions with no
 * event to wait on (a log file's contents, a process list, an HTTP health check); DOM conditions
 * use playwright's own waiting instead.
 */
export async function until(what, check, timeoutMs = UI_TIMEOUT, intervalMs = 100) {
  const end = Date.now() + timeoutMs;
  let lastError;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > end) {
      const why = lastError ? ` (last error: ${String(lastError.message ?? lastError).split("\n")[0]})` : "";
      throw new Error(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${what}${why}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** A step's failure with a message that says what the suite expected to see. */
export class Expectation extends Error {
  constructor(message) {
    super(message);
    this.name = "Expectation";
  }
}

/** Throw an Expectation unless `ok`. */
export function expect(ok, message) {
  if (!ok) throw new Expectation(message);
}
