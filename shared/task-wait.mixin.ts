/**
 * Waiting a bounded time for a task to finish, for requests that start a durable job (house rule 6, docs/architecture.md)
 * but answer with its figures when it ends quickly (refresh_pods, sync). Finished tasks are broadcast
 * (`tasks.changed`), so every node hears the end of a job whichever worker ran it.
 */
import type { Service } from "moleculer";
import type { Caller } from "./contracts/call";
import { TASK_CHANGED, TaskRecord, taskStatus } from "./contracts/tasks";
import { type Ctx, mixin } from "./service-types";

/** What the mixin adds to a service's `this`. */
export interface TaskWaitThis extends Service {
  taskWaiters: Map<string, (task: TaskRecord | null) => void>;
  waitForTask(ctx: Caller, id: string, timeoutMs: number): Promise<TaskRecord | null>;
}

export const TaskWaitMixin = mixin<TaskWaitThis>({
  events: {
    [TASK_CHANGED](this: TaskWaitThis, ctx: Ctx<TaskRecord>) {
      if (ctx.params.status === "SUCCESS" || ctx.params.status === "FAILED") this.taskWaiters.get(ctx.params.id)?.(ctx.params);
    },
  },
  created(this: TaskWaitThis) {
    this.taskWaiters = new Map();
  },
  methods: {
    /** The task once finished, or null after timeoutMs. */
    async waitForTask(this: TaskWaitThis, ctx: Caller, id: string, timeoutMs: number): Promise<TaskRecord | null> {
      let timer: NodeJS.Timeout | undefined;
      const finished = new Promise<TaskRecord | null>((resolve) => {
        this.taskWaiters.set(id, resolve);
        timer = setTimeout(() => resolve(null), timeoutMs);
      });
      try {
        // It may have finished before the waiter was set.
        const now = await taskStatus(ctx, { task_id: id });
        if (now.status === "SUCCESS" || now.status === "FAILED") return now;
        return await finished;
      } finally {
        clearTimeout(timer);
        this.taskWaiters.delete(id);
      }
    },
  },
});
