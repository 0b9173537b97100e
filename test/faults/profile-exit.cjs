/* global process, setTimeout */
// Preloaded into the fault run's node processes under FAULTS_PROFILE_DIR (test/faults/processes.ts):
// --cpu-prof writes a process's profiles only when it exits, and a worker still draining when
// the runner's stop grace (20 s) runs out is SIGKILLed without them; so it exits 10 s after SIGTERM.
process.once('SIGTERM', () => setTimeout(() => process.exit(0), 10_000).unref());
