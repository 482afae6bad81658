import cliProgress from 'cli-progress';

/**
 * Progress of a long-running CLI command (seeding, migrations, requeueing), shared by every
 * command so they all look alike. It goes to stderr: stdout carries the command's result (a token,
 * a summary), which scripts read. On a terminal a progress bar (cli-progress); otherwise plain
 * lines without ANSI codes: one when a tenth more of the step is done and one when it ends, so a
 * CI log or a file gets a few readable lines instead of a redrawn bar.
 */
export interface ProgressStep {
  /** `count` more units of the step are done. */
  tick(count?: number): void;
  /** The step is over: its last line, with the units done and the time taken. */
  finish(): void;
}

/** Starts a step; CLI commands receive one of these, library code takes it as an optional argument. */
export type StartProgress = (label: string, total: number) => ProgressStep;

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Progress on `output` (stderr unless given): a bar when it is a terminal, plain lines otherwise. */
export function progressReporter(output: ProgressOutput = process.stderr): StartProgress {
  return (label, total) => (output.isTTY ? barStep(output, label, total) : lineStep(output, label, total));
}

function barStep(output: ProgressOutput, label: string, total: number): ProgressStep {
  const bar = new cliProgress.SingleBar({
    format: `${label.padEnd(24)} [{bar}] {percentage}% | {value}/{total} | {duration_formatted}`,
    stream: output as NodeJS.WritableStream,
    hideCursor: true,
    clearOnComplete: false,
    etaBuffer: 50,
  }, cliProgress.Presets.shades_classic);
  bar.start(Math.max(total, 0), 0);
  return {
    tick(count = 1) { bar.increment(count); },
    finish() { bar.stop(); },
  };
}

function lineStep(output: ProgressOutput, label: string, total: number): ProgressStep {
  const started = Date.now();
  let done = 0;
  let tenthsShown = 0;
  return {
    tick(count = 1) {
      done += count;
      const tenths = total > 0 ? Math.floor((Math.min(done, total) * 10) / total) : 0;
      // Every tenth crossed (not the last: finish prints that one).
      if (tenths > tenthsShown && tenths < 10) {
        tenthsShown = tenths;
        output.write(`${label}: ${done}/${total} (${tenths * 10}%)\n`);
      }
    },
    finish() {
      output.write(`${label}: ${done}/${total} done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    },
  };
}
