import { GatewayProcess, startGatewayProcess } from '@test/support/gateway-process';
import { seedAgent, SeededAgent } from '@test/crash/support/gateway-runtime.seed';

/** The MCP tool every benchmark call goes to: `echo` on the benchmark server, registered as MCP_REMOTE. */
export const BENCH_TOOL = 'bench_echo';

/** A gateway child process with the benchmark tool, an agent bound to it and a runtime key. */
export interface BenchGateway {
  gw: GatewayProcess;
  seeded: SeededAgent;
  /** Stops the process; with profiling on, it exits cleanly first so its CPU profile is written. */
  stop(): Promise<void>;
}

/** Options of {@link startBenchGateway}. */
export interface BenchGatewayOptions {
  databaseUrl: string;
  /** The benchmark MCP server's streamable HTTP URL. */
  mcpUrl: string;
  instanceId: string;
  /** Write a V8 CPU profile of the gateway into this directory (node --cpu-prof). */
  profileDir?: string;
  env?: Record<string, string>;
}

/** Sampling interval of the CPU profile (µs); BENCH_PROFILE_INTERVAL_US overrides V8's default of 1000. */
const PROFILE_INTERVAL_US = Number(process.env.BENCH_PROFILE_INTERVAL_US ?? 1000);

/** Exits on SIGUSR2 (before Nest's own handler re-raises it), so --cpu-prof can write its file. */
const EXIT_ON_SIGUSR2 = 'data:text/javascript,process.on("SIGUSR2",()=>process.exit(0))';

/** Starts the gateway as production would run it (NODE_ENV=production, warn logs) and seeds the tool. */
export async function startBenchGateway(options: BenchGatewayOptions): Promise<BenchGateway> {
  const gw = await startGatewayProcess({
    databaseUrl: options.databaseUrl,
    instanceId: options.instanceId,
    env: { NODE_ENV: 'production', ...options.env },
    nodeArgs: options.profileDir
      ? [
          '--cpu-prof',
          `--cpu-prof-dir=${options.profileDir}`,
          `--cpu-prof-interval=${PROFILE_INTERVAL_US}`,
          '--import',
          EXIT_ON_SIGUSR2,
        ]
      : [],
  });
  try {
    const seeded = await seedAgent(gw, 'bench', [
      {
        name: BENCH_TOOL,
        description: 'Echoes the message (benchmark)',
        parameters: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
        serviceType: 'MCP_REMOTE',
        endpoint: options.mcpUrl,
        remoteName: 'echo',
        sideEffect: 'READ_ONLY',
      },
    ]);
    const stop = async () => {
      if (!options.profileDir) return void (await gw.stop());
      gw.signal('SIGUSR2');
      await gw.exited;
      await gw.kill(); // releases the client side
    };
    return { gw, seeded, stop };
  } catch (err) {
    await gw.kill();
    throw err;
  }
}
