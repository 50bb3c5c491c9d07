/**
 * `playwright test --list` hands the reporters a run in which no test runs: they then write nothing, so that
 * listing the checks never replaces the last run's matrix or clears its Allure results.
 */
export function isListingOnly(argv: readonly string[] = process.argv): boolean {
  return argv.includes('--list');
}
