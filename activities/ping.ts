/** The ping flow's one activity: proves an activity worker polls the queue (workflows/ping.ts). */
export const pingActivities = {
  async echo(taskQueue: string): Promise<string> {
    return `worker@${taskQueue}`;
  },
};

export type PingActivities = typeof pingActivities;
