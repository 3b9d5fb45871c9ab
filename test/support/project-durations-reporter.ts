import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints how long each vitest project took at the end of a run (CI's log keeps the suite's time, project by project):
 * its files, the wall time from its first file's start to its last file's end (projects share the workers, so these
 * overlap), and the sum of its files' own times (import, setup, tests and hooks).
 */
export default class ProjectDurationsReporter implements Reporter {
  private readonly projects = new Map<string, { files: number; firstStart: number; lastEnd: number; fileTime: number }>();

  onTestModuleStart(module: TestModule): void {
    const name = module.project.name || 'default';
    const project = this.projects.get(name) ?? { files: 0, firstStart: performance.now(), lastEnd: 0, fileTime: 0 };
    project.files += 1;
    this.projects.set(name, project);
  }

  onTestModuleEnd(module: TestModule): void {
    const project = this.projects.get(module.project.name || 'default');
    if (!project) return;
    const { prepareDuration, collectDuration, setupDuration, duration } = module.diagnostic();
    project.fileTime += prepareDuration + collectDuration + setupDuration + duration;
    project.lastEnd = performance.now();
  }

  onTestRunEnd(): void {
    if (this.projects.size === 0) return;
    const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
    const rows = [...this.projects].map(([name, project]) => [
      name,
      String(project.files),
      seconds(project.lastEnd - project.firstStart),
      seconds(project.fileTime),
    ]);
    const header = ['project', 'files', 'wall (first start → last end)', 'sum of file times'];
    const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
    const line = (cells: string[]) =>
      cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  ');
    process.stdout.write(`\nDuration per project\n${line(header)}\n${rows.map(line).join('\n')}\n`);
  }
}
