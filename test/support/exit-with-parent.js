// Preloaded (node -r) into every gateway process a test or benchmark starts: it exits once the process that started
// it is gone. A Jest worker killed at the end of a run (past its grace time) or a test that timed out while a gateway
// was starting never stops that gateway itself, and its process.on('exit') hook does not run on a signal.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) process.exit(1);
}, 1000).unref();
