/** Whether testcontainers can reach a container runtime (Docker, Podman...), and why not. */
export interface ContainerRuntimeStatus {
  readonly available: boolean;
  readonly reason: string;
}

let status: Promise<ContainerRuntimeStatus> | undefined;

/**
 * Asks testcontainers for a container runtime, once per process. testcontainers is imported
 * lazily: most runs find PostgreSQL and Redis without it.
 */
export function containerRuntimeAvailable(): Promise<ContainerRuntimeStatus> {
  status ??= probe();
  return status;
}

async function probe(): Promise<ContainerRuntimeStatus> {
  if (process.env['TESTCONTAINERS'] === '0' || process.env['TESTCONTAINERS'] === 'false') {
    return { available: false, reason: 'TESTCONTAINERS is disabled in the environment' };
  }
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    const client = await withTimeout(
      getContainerRuntimeClient(),
      10_000,
      'container runtime probe',
    );
    return { available: true, reason: `container runtime at ${client.info.containerRuntime.host}` };
  } catch (error) {
    return {
      available: false,
      reason: `no container runtime (${firstLine(error)})`,
    };
  }
}

export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}

export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          reject(new Error(`${what} timed out after ${ms} ms`));
        }, ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
