import { machineBusyMs } from './machine.ts';

/** CPU time (ms) spent over a measured window. */
export interface WindowCpu {
  /** This process: the bench's own clients. */
  clientMs: number;
  /** Undefined when the server's CPU time could not be read. */
  serverMs?: number;
  /** The extra processes counted (0 when there were none or they could not be read). */
  extraMs: number;
  /**
   * Every other process on the machine; undefined without /proc, or when the server's share is
   * unknown (it would count as someone else's).
   */
  othersMs?: number;
}

/**
 * Starts counting CPU time; the returned function ends the window. `server` and `extra` read a
 * process's (or processes') CPU time so far, so that neither is mistaken for other load.
 */
export function cpuWindow(server?: () => number | undefined, extra?: () => number | undefined): () => WindowCpu {
  const server0 = server?.();
  const extra0 = extra?.();
  const client0 = process.cpuUsage();
  const busy0 = machineBusyMs();
  return () => {
    const extra1 = extra?.();
    const busy1 = machineBusyMs();
    const server1 = server?.();
    const client = process.cpuUsage(client0);
    const clientMs = (client.user + client.system) / 1000;
    const serverMs = server0 !== undefined && server1 !== undefined ? server1 - server0 : undefined;
    const extraMs = extra0 !== undefined && extra1 !== undefined ? extra1 - extra0 : 0;
    const known = busy0 !== undefined && busy1 !== undefined && (server === undefined || serverMs !== undefined);
    return {
      clientMs,
      ...(serverMs !== undefined ? { serverMs } : {}),
      extraMs,
      ...(known ? { othersMs: Math.max(0, busy1 - busy0 - (serverMs ?? 0) - clientMs - extraMs) } : {}),
    };
  };
}

/** The window's CPU time as cores busy on average over `seconds`. */
export function coresOf(cpu: WindowCpu, seconds: number): { serverCores?: number; clientCores: number; otherCores?: number } {
  return {
    ...(cpu.serverMs !== undefined ? { serverCores: cpu.serverMs / 1000 / seconds } : {}),
    clientCores: cpu.clientMs / 1000 / seconds,
    ...(cpu.othersMs !== undefined ? { otherCores: cpu.othersMs / 1000 / seconds } : {}),
  };
}
