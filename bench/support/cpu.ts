// CPU time of a process from /proc (Linux), to tell whether a server or the load generator was the limit.
import { readFileSync } from 'node:fs';

/** Linux reports utime and stime in USER_HZ ticks, which the kernel ABI fixes at 100 per second. */
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds used so far by `pid` (all its threads), or undefined off Linux. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
