import { setFlagsFromString } from 'node:v8';
import { z } from 'zod';

/** `V8_MEMORY_REDUCER`: whether V8 shrinks an idle process's heap (default off, ADR 0049). */
export const memoryReducerSetting = z.stringbool().default(false);

/**
 * V8's settings for a long-running service process, from its environment; called first thing by
 * every process (`runProcess`, the gateway's main). V8's memory reducer, on by default, answers
 * a process whose allocation slows down with full collections of its whole heap, to hand memory
 * back; a service idling between rounds allocates a little all the time (its safety polls, its
 * timers), so the reducer never stops, and those collections were two thirds of an idle
 * gateway's CPU (bench/RESULTS.md). Off, the heap is collected as it fills, as under load.
 * `V8_MEMORY_REDUCER=true` keeps V8's default. A value that is not a boolean is left to the
 * process's configuration, which refuses it, naming it.
 */
export function applyV8Settings(env: NodeJS.ProcessEnv = process.env): void {
  const reducer = memoryReducerSetting.safeParse(env.V8_MEMORY_REDUCER);
  if (reducer.success && !reducer.data) setFlagsFromString('--no-memory-reducer');
}
