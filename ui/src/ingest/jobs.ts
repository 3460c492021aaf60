// The jobs the server runs (follow, demo): the list the status bar shows, polled while one
// runs, with a message when one ends. Its own module so the app holds no timer for it.

import { BackendError, type Backend } from "../api/backend";
import type { Job } from "../api/contract";
import type { Notifier } from "../shared/host";

/** What the job watcher needs of the app. */
export interface JobsHost {
  readonly backend: Pick<Backend, "jobs" | "stopJob">;
  readonly toasts: Notifier;
  /** The job list changed (the status bar shows it). */
  jobsChanged(): void;
  /** A job ended: its graph may be new. */
  refreshGraphs(): Promise<void>;
}

const POLL_MS = 1500;

export class JobWatcher {
  jobs: Job[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(private readonly host: JobsHost) {}

  /** A job was started from the Ingest menu: show it and watch it until it ends. */
  started(job: Job): void {
    this.jobs = [...this.jobs.filter((j) => j.id !== job.id), job];
    this.host.jobsChanged();
    void this.poll();
  }

  /** Lists the jobs now, and every 1.5 s while one runs. */
  async poll(): Promise<void> {
    if (this.timer !== null) return;
    const tick = async (): Promise<void> => {
      let jobs: Job[];
      try {
        jobs = await this.host.backend.jobs();
      } catch (e) {
        this.stopPolling();
        this.host.toasts.error(e, "Listing jobs");
        return;
      }
      for (const j of jobs) {
        const before = this.jobs.find((x) => x.id === j.id);
        if (before?.state === "running" && j.state !== "running") {
          if (j.state === "failed") this.host.toasts.error(new BackendError("job_failed", j.detail ?? "failed"), `${cap(j.kind)} into “${j.graph}”`);
          else this.host.toasts.info(`${cap(j.kind)} into “${j.graph}” ${j.state}${j.detail ? `: ${j.detail}` : ""}`);
          void this.host.refreshGraphs();
        }
      }
      this.jobs = jobs;
      this.host.jobsChanged();
      if (!jobs.some((j) => j.state === "running")) this.stopPolling();
    };
    this.timer = setInterval(() => void tick(), POLL_MS);
    await tick();
  }

  private stopPolling(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  async stop(id: string): Promise<void> {
    try {
      const job = await this.host.backend.stopJob({ id });
      this.jobs = this.jobs.map((j) => (j.id === id ? job : j));
      this.host.jobsChanged();
    } catch (e) {
      this.host.toasts.error(e, "Stopping job");
    }
  }
}

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
