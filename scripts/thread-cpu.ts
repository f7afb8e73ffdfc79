// CPU time per thread of a process, from /proc (Linux). The chat bench reports where a burst's
// CPU went: the app's main thread and its other threads (the database worker, V8's compiler and
// GC helpers, libuv), and the test model server's process. A thread that ends during a burst
// takes its CPU time with it, so "others" can undercount.
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface ThreadCpu {
  main: number;
  others: number;
}

/** Milliseconds of CPU so far of a process's main thread and of all its other threads; null off Linux. */
export function threadCpu(pid: number): ThreadCpu | null {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return null;
  }
  const out = { main: 0, others: 0 };
  for (const tid of tids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
    } catch {
      continue; // the thread ended meanwhile
    }
    // Fields after the parenthesised name: utime and stime are the 12th and 13th.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ms = (Number(f[11]) + Number(f[12])) * TICK_MS;
    if (tid === String(pid)) out.main += ms;
    else out.others += ms;
  }
  return out;
}
