/**
 * How often a crashed language server is restarted: at most `max` restarts within a sliding window,
 * then the extension stops trying and says so. Without a budget a server that dies at start-up (an
 * interpreter without Spore, say) would be restarted forever and flood the output channel.
 */
export type CrashDecision =
  | { action: "restart"; attempt: number; max: number }
  | { action: "give-up"; crashes: number }
  | { action: "start-failed" };

export class CrashBudget {
  private crashes: number[] = [];

  constructor(readonly max = 4, readonly windowMs = 3 * 60 * 1000) {}

  /** Record a crash at time `now` (ms) and decide what to do about it. */
  record(now: number): CrashDecision {
    this.crashes = this.crashes.filter((t) => now - t < this.windowMs);
    this.crashes.push(now);
    if (this.crashes.length <= this.max) return { action: "restart", attempt: this.crashes.length, max: this.max };
    return { action: "give-up", crashes: this.crashes.length };
  }

  /** Forget past crashes (a restart the user asked for starts with a full budget). */
  reset(): void {
    this.crashes = [];
  }
}

/**
 * What to do when the server's connection closes. A server that never finished starting (an
 * interpreter without Spore: `No module named spore_lsp`) is a set-up problem, not a crash:
 * restarting it would only repeat the failure, so it is reported once and left stopped.
 */
export function onServerClosed(startedOnce: boolean, budget: CrashBudget, now: number): CrashDecision {
  return startedOnce ? budget.record(now) : { action: "start-failed" };
}
