/**
 * The value of the first sample of `name` in a Prometheus text exposition whose labels include
 * `labels`, or undefined when there is none.
 */
export function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = Object.entries(labels);
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/.exec(line);
    if (match === null || match[1] !== name) continue;
    const found = new Map(
      [...(match[3] ?? '').matchAll(/([a-zA-Z_]+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!] as const),
    );
    if (wanted.every(([key, value]) => found.get(key) === value)) return Number(match[4]);
  }
  return undefined;
}

/** Whether the exposition declares the metric at all (a `# TYPE` line), with or without samples. */
export function declares(text: string, name: string): boolean {
  return text.split('\n').some((line) => line.startsWith(`# TYPE ${name} `));
}
