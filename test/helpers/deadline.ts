/**
 * A wait with a deadline, so a hang fails the test instead of running into its timeout (or forever).
 * Tests never assert how long something took (CI shares its cores with other work; speed is measured
 * in bench/): a deadline here is generous, and missing it means the call hung or waited for something
 * it should not have, never that the machine was slow. `p` keeps running past the deadline; its
 * rejection is observed so it never goes unhandled.
 */
export async function answersWithin<T>(what: string, p: Promise<T>, ms: number): Promise<T> {
  p.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([p, hung]);
  } finally {
    clearTimeout(timer);
  }
}
