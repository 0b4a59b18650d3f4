// CPU time of a process from /proc (Linux), to tell whether a server or the load generator was the limit.
import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports utime and stime in USER_HZ ticks, which the kernel ABI fixes at 100 per second. */
const TICKS_PER_SECOND = 100;

/** The fields of a /proc stat line after the parenthesised command name (state is index 0). */
function statFields(file: string): string[] | undefined {
  try {
    const stat = readFileSync(file, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** User + system CPU seconds used so far by `pid` (all its threads), or undefined off Linux. */
export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the line.
  const fields = statFields(`/proc/${pid}/stat`);
  return fields ? (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND : undefined;
}

/** The ids of the processes whose parent is `pid` (a node's CometBFT), from /proc; empty off Linux. */
export function childPids(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    // ppid is field 4 of the line, index 1 after the command name.
    if (Number(statFields(`/proc/${e}/stat`)?.[1]) === pid) out.push(Number(e));
  }
  return out;
}

/** CPU seconds of each thread of `pid` by thread name (threads of one name summed), or an empty map off Linux. */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    let name: string;
    try {
      name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    const fields = statFields(`/proc/${pid}/task/${tid}/stat`);
    if (!fields) continue;
    // The main thread of a process has the process's id.
    const key = tid === String(pid) ? 'main' : name;
    out.set(key, (out.get(key) ?? 0) + (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND);
  }
  return out;
}

/** CPU seconds the whole machine spent busy (all cores: everything but idle and iowait), or undefined off Linux. */
export function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const t = line.trim().split(/\s+/).slice(1).map(Number);
    const total = t.slice(0, 8).reduce((a, b) => a + b, 0);
    return (total - t[3]! - t[4]!) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}
