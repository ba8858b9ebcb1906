/**
 * Waiting a bounded time for a task to finish, for requests that start a durable job (house rule 6, docs/architecture.md)
 * but answer with its figures when it ends quickly (refresh_pods, sync). Finished tasks are broadcast
 * (`tasks.changed`), so every node hears the end of a job whichever worker ran it.
 */
import type { Context, ServiceSchema } from "moleculer";
import { TASK_CHANGED, TaskRecord } from "./contracts/tasks";

export const TaskWaitMixin: Partial<ServiceSchema> = {
  events: {
    [TASK_CHANGED](this: any, ctx: Context<TaskRecord>) {
      if (ctx.params.status === "SUCCESS" || ctx.params.status === "FAILED") this.taskWaiters.get(ctx.params.id)?.(ctx.params);
    },
  },
  created(this: any) {
    this.taskWaiters = new Map();
  },
  methods: {
    /** The task once finished, or null after timeoutMs. */
    async waitForTask(this: any, ctx: Context, id: string, timeoutMs: number): Promise<TaskRecord | null> {
      let timer: NodeJS.Timeout | undefined;
      const finished = new Promise<TaskRecord | null>((resolve) => {
        this.taskWaiters.set(id, resolve);
        timer = setTimeout(() => resolve(null), timeoutMs);
      });
      try {
        // It may have finished before the waiter was set.
        const now: TaskRecord = await ctx.call("tasks.task_status", { task_id: id });
        if (now.status === "SUCCESS" || now.status === "FAILED") return now;
        return await finished;
      } finally {
        clearTimeout(timer);
        this.taskWaiters.delete(id);
      }
    },
  },
};
