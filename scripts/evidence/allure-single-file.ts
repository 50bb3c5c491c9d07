import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { allureReportConfig } from '../../reporters/allure-config.ts';
import { packageDir } from '../product.ts';

const allureCli = join(packageDir('allure'), 'cli.js');

/**
 * Nothing in an opened report may reach the network: scripts are inline or data: URLs, attachments are embedded.
 * The policy makes that hold even if a later Allure version adds a remote resource.
 */
const OFFLINE_POLICY = [
  "default-src 'none'",
  "script-src 'unsafe-inline' 'unsafe-eval' data: blob:",
  "style-src 'unsafe-inline' data: blob:",
  'img-src data: blob:',
  'font-src data:',
  'connect-src data: blob:',
  'media-src data: blob:',
  'frame-src data: blob:',
  'worker-src data: blob:',
].join('; ');

/** Remote tags the Allure 3 template adds (its analytics), and any other remote script, stylesheet or image. */
const REMOTE_TAG = /<(script|link|img|iframe)\b[^>]*\b(?:src|href)\s*=\s*["']?(?:https?:)?\/\/[^>]*>(?:\s*<\/\1>)?/gi;
const ANALYTICS_SCRIPT = /<script>\s*window\.dataLayer[\s\S]*?<\/script>/g;

/** The report's HTML made offline-only: remote tags and the analytics snippet removed, an offline policy added. */
export function offlineHtml(html: string): string {
  const stripped = html.replace(REMOTE_TAG, '').replace(ANALYTICS_SCRIPT, '');
  const policy = `<meta http-equiv="Content-Security-Policy" content="${OFFLINE_POLICY}">`;
  return stripped.replace(/<head>/i, `<head>\n    ${policy}`);
}

/** Remote references left in the HTML itself (outside data: URLs): none in a report that opens offline. */
export function remoteReferences(html: string): string[] {
  return [...html.matchAll(/\b(?:src|href)\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi)].map((m) => m[1] ?? '');
}

export interface SingleFileReport {
  file: string;
  tests: number;
}

/**
 * Builds the Allure 3 report of a results folder as one HTML file that opens from disk, with the `allure` package
 * only (no network). With a history path, the run is appended to that history and the report shows trends.
 */
export function buildSingleFileReport(options: {
  resultsDir: string;
  outputFile: string;
  name: string;
  historyPath?: string;
}): SingleFileReport {
  const resultsDir = resolve(options.resultsDir);
  if (!existsSync(resultsDir) || !readdirSync(resultsDir).some((f) => f.endsWith('-result.json'))) {
    throw new Error(`No Allure results in ${resultsDir}: run the suite first (npm run conformance)`);
  }
  const work = mkdtempSync(join(tmpdir(), 'allure-report-'));
  try {
    const output = join(work, 'report');
    const configFile = join(work, 'allurerc.json');
    const historyPath = options.historyPath ? resolve(options.historyPath) : undefined;
    if (historyPath) mkdirSync(dirname(historyPath), { recursive: true });
    writeFileSync(
      configFile,
      JSON.stringify(
        allureReportConfig({ name: options.name, output, ...(historyPath ? { historyPath } : {}) }),
        null,
        2,
      ),
    );
    const run = spawnSync(
      process.execPath,
      [allureCli, 'generate', resultsDir, '--config', configFile, '--output', output],
      {
        cwd: work,
        encoding: 'utf8',
        // eslint-disable-next-line no-restricted-properties -- the environment given to a child process
        env: { ...process.env, NO_COLOR: '1' },
      },
    );
    const index = join(output, 'index.html');
    if (run.status !== 0 || !existsSync(index)) {
      throw new Error(
        `allure generate failed (exit ${run.status}):\n${`${run.stdout}\n${run.stderr}`.trim().slice(-2000)}`,
      );
    }
    const html = offlineHtml(readFileSync(index, 'utf8'));
    const left = remoteReferences(html);
    if (left.length > 0) throw new Error(`The report still references remote resources: ${left.join(', ')}`);
    mkdirSync(dirname(resolve(options.outputFile)), { recursive: true });
    writeFileSync(options.outputFile, html);
    const tests = readdirSync(resultsDir).filter((f) => f.endsWith('-result.json')).length;
    return { file: options.outputFile, tests };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
