/**
 * Records a V8 CPU profile of a service process for the benchmarks (`--cpu-prof` is not allowed
 * in NODE_OPTIONS). Preloaded with `NODE_OPTIONS=--import=<this file>` and `CPU_PROF_DIR`: the
 * profile of the whole run is written to `$CPU_PROF_DIR/<pid>.cpuprofile` when the process exits
 * (Chrome DevTools or `speedscope` read it).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';
import process from 'node:process';

const directory = process.env.CPU_PROF_DIR;
if (directory) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 1000 });
  session.post('Profiler.start');
  process.on('exit', () => {
    // An in-process session answers synchronously, so this runs within the exit handler.
    session.post('Profiler.stop', (error, result) => {
      if (!error)
        writeFileSync(join(directory, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
