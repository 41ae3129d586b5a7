/**
 * What a deployment costs with nothing to do (issue 27): tables open, nobody playing. Over
 * `seconds`, the CPU of each service process and of the run's own PostgreSQL processes (cost.ts
 * says which), in ms per second and in percent of one core, and the statements each second by
 * kind: a poller shows as a statement kind read several times a second with nothing to find.
 * The target is at most 1 % of a core per process.
 */
import { groupCpuBetween, type RoundCost } from './cost.js';

/** At most this share of one core per process, with tables open and nobody playing. */
export const IDLE_TARGET_PERCENT_OF_CORE = 1;

export async function measureIdle(cost: RoundCost, seconds: number) {
  const before = await cost.sample({ settleMs: 0 });
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = await cost.sample({ settleMs: 0 });
  const elapsed = (performance.now() - started) / 1000;
  const msPerSecond = (cpuSeconds: number) => Number(((cpuSeconds * 1000) / elapsed).toFixed(2));
  const cpu: Record<string, number> = {};
  for (const [id, used] of Object.entries(after.cpuSeconds))
    cpu[id] = msPerSecond(used - (before.cpuSeconds[id] ?? 0));
  cpu['postgres'] = msPerSecond(groupCpuBetween(before.postgresCpu, after.postgresCpu));
  const statements: Record<string, number> = {};
  for (const [kind, count] of Object.entries(after.driverStatements)) {
    const delta = count - (before.driverStatements[kind] ?? 0);
    if (delta > 0 && !kind.startsWith('group commit: '))
      statements[kind] = Number((delta / elapsed).toFixed(2));
  }
  const services = Object.entries(cpu).filter(([id]) => id !== 'postgres');
  return {
    idleSeconds: Number(elapsed.toFixed(1)),
    // ms of CPU per second is tenths of a percent of a core: 10 ms/s is 1 %.
    idleCpuMsPerSecondByProcess: cpu,
    idleCorePercentByProcess: Object.fromEntries(
      Object.entries(cpu).map(([id, ms]) => [id, Number((ms / 10).toFixed(2))]),
    ),
    idleStatementsPerSecondByKind: Object.fromEntries(
      Object.entries(statements).sort(([, a], [, b]) => b - a),
    ),
    idleMachineBusyCores: Number(
      ((after.machineBusySeconds - before.machineBusySeconds) / elapsed).toFixed(2),
    ),
    idleTargetPercentOfCore: IDLE_TARGET_PERCENT_OF_CORE,
    idleMeetsTarget: services.every(([, ms]) => ms / 10 <= IDLE_TARGET_PERCENT_OF_CORE),
  };
}
