// A V8 CPU profile of a child process, for benches: loaded with NODE_OPTIONS="--import <this file>"
// (node refuses --cpu-prof in NODE_OPTIONS), it profiles the main thread from start and writes
// $SVC_CPU_PROFILE_DIR/<pid>.cpuprofile when the process exits (svc-node exits on SIGTERM).
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';

const dir = process.env.SVC_CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  // Sampling every 200 us (V8's default is 1 ms on Linux).
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  process.once('exit', () => {
    // The in-process inspector answers synchronously, so the profile is written before the exit.
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
