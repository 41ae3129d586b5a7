import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { COMMANDS, run, type CommandIo } from '../src/index.js';

async function croupier(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CommandIo = {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    interactive: false,
  };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

describe('croupier analyze', () => {
  it('prints the exact analysis as JSON in the published shape', async () => {
    const { code, stdout } = await croupier('analyze', '--decks', '8', '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      decks: number;
      probabilities: Record<string, number>;
      bets: Record<string, { houseEdge: number; rtp: number }>;
    };
    expect(report.decks).toBe(8);
    expect(Object.keys(report.probabilities).sort()).toEqual(['banker', 'player', 'tie']);
    expect(Object.keys(report.bets)).toHaveLength(15);
    expect(report.bets.banker_no_commission).toBeDefined();
    expect(report.bets.banker!.rtp).toBeCloseTo(0.98942, 5);
    expect(report.bets.player!.houseEdge).toBeCloseTo(0.012351, 6);
  });

  it('prices only what a preset offers', async () => {
    const { stdout } = await croupier('analyze', '--preset', 'touch', '--json');
    const report = JSON.parse(stdout) as { decks: number; bets: Record<string, unknown> };
    expect(report.decks).toBe(8);
    expect(Object.keys(report.bets)).toEqual(['player', 'banker', 'tie']);
    const single = JSON.parse(
      (await croupier('analyze', '--preset', 'single-deck', '--json')).stdout,
    ) as {
      decks: number;
    };
    expect(single.decks).toBe(1);
  });

  it('prints a readable table without --json', async () => {
    const { stdout } = await croupier('analyze', '--decks', '6');
    expect(stdout).toMatch(/Exact analysis: 6 decks/);
    expect(stdout).toMatch(/banker\s+98\.94\d\d%\s+1\.05\d\d%/);
  });

  it('adds the effective RTP at --stake (minor units) beside the RTP of every bet', async () => {
    const { code, stdout } = await croupier(
      'analyze',
      '--preset',
      'touch',
      '--stake',
      '10',
      '--json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      stake: number;
      bets: Record<string, { rtp: number; effectiveRtp: number }>;
    };
    expect(report.stake).toBe(10);
    for (const bet of Object.values(report.bets))
      expect(bet.effectiveRtp).toBeLessThanOrEqual(bet.rtp);
    // Seed 003: 98.94% published, 96.65% for a 0.10 bettor whose wins are rounded down.
    expect(report.bets.banker!.effectiveRtp).toBeCloseTo(0.9665, 4);
    expect(report.bets.player!.effectiveRtp).toBe(report.bets.player!.rtp);
    const text = (await croupier('analyze', '--preset', 'touch', '--stake', '30')).stdout;
    expect(text).toMatch(/At a stake of 30 minor units/);
    expect(text).toMatch(/banker\s+98\.94\d\d%\s+1\.05\d\d%\s+98\.17\d\d%/);
  });

  it('names a bad option and exits 2', async () => {
    for (const [args, message] of [
      [['--decks', '9'], /--decks must be an integer from 1 to 8, got "9"/],
      [['--decks', 'two'], /--decks must be an integer/],
      [['--preset', 'vegas'], /--preset must be one of live, generic/],
      [['--deck', '8'], /Unknown option '--deck'/],
      [['--stake', '0.10'], /--stake must be an integer from 1/],
      [['--stake', '0'], /--stake must be an integer from 1/],
    ] as const) {
      const { code, stderr } = await croupier('analyze', ...args);
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
    }
  });
});

describe('croupier simulate', () => {
  it('deals, settles and reports with confidence intervals', async () => {
    const { code, stdout } = await croupier(
      'simulate',
      '--hands',
      '20000',
      '--seed',
      'cli',
      '--json',
    );
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as {
      hands: number;
      seed: string;
      handsPerSecond: number;
      bets: Record<string, { rtp: number; ci95: [number, number] }>;
    };
    expect(report.hands).toBe(20_000);
    expect(report.seed).toBe('cli');
    expect(report.handsPerSecond).toBeGreaterThan(0);
    const banker = report.bets.banker!;
    expect(banker.ci95[0]).toBeLessThan(banker.rtp);
    expect(banker.ci95[1]).toBeGreaterThan(banker.rtp);
  });

  it('requires --hands', async () => {
    const { code, stderr } = await croupier('simulate');
    expect(code).toBe(2);
    expect(stderr).toMatch(/--hands is required/);
  });
});

describe('croupier roads', () => {
  it('prints every road of a sequence as JSON', async () => {
    const { stdout } = await croupier('roads', '--results', 'BBPPPTBPBBB', '--json');
    const roads = JSON.parse(stdout) as {
      beadPlate: string[];
      bigRoad: { columns: string[]; ties: unknown[] };
      bigEyeBoy: string;
      smallRoad: string;
      cockroachPig: string;
      grids: Record<string, string[]>;
    };
    expect(roads.beadPlate).toHaveLength(11);
    expect(roads.bigRoad.columns).toEqual(['BB', 'PPP', 'B', 'P', 'BBB']);
    expect(roads.bigRoad.ties).toEqual([{ column: 1, row: 2, count: 1 }]);
    expect(roads.bigEyeBoy).toBe('RBBBRBR');
    expect(roads.smallRoad).toBe('BBBR');
    expect(roads.cockroachPig).toBe('BRR');
    expect(roads.grids.bigRoad).toHaveLength(6);
  });

  it('refuses a sequence with anything but B, P and T', async () => {
    const { code, stderr } = await croupier('roads', '--results', 'BPZ');
    expect(code).toBe(2);
    expect(stderr).toMatch(/found "Z"/);
  });
});

describe('the croupier command', () => {
  it('runs as a process, as `pnpm casino` runs it', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        fileURLToPath(new URL('../croupier.js', import.meta.url)),
        'analyze',
        '--decks',
        '1',
        '--json',
      ],
      { cwd: fileURLToPath(new URL('..', import.meta.url)) },
    );
    expect((JSON.parse(stdout) as { decks: number }).decks).toBe(1);
  });

  it('lists each command with the summary the command itself gives', async () => {
    for (const entry of COMMANDS) {
      const command = await entry.load();
      expect(command.name).toBe(entry.name);
      expect(command.summary).toBe(entry.summary);
    }
  });

  it('lists its commands and refuses unknown ones', async () => {
    expect((await croupier('--help')).stdout).toMatch(/analyze\s+exact house edge/);
    const unknown = await croupier('deal');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command "deal"/);
  });
});
