/** The coordinator's timers, behind an interface so tests can move time by hand. */

/** Stops a scheduled task that has not run yet. */
export type Cancel = () => void;

export interface Scheduler {
  schedule(delayMs: number, task: () => void): Cancel;
}

/** Node timers, unref'd: a group waiting on a timeout never keeps the process alive. */
export const timerScheduler: Scheduler = {
  schedule(delayMs, task) {
    const timer = setTimeout(task, delayMs);
    timer.unref();
    return () => clearTimeout(timer);
  },
};
