import { relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type { TestCase, TestError, TestResult } from '@playwright/test/reporter';
import type { TestRecord } from './verdicts.ts';

/** What the reporters keep of one test's final result: title, project, where it is, status, annotations and the first error. */
export function testRecordOf(test: TestCase, result: TestResult, rootDir: string): TestRecord {
  // allure-playwright reports tests that never started with a result that lacks errors.
  const error = result.errors?.[0];
  return {
    title: test.title,
    project: test.parent.project()?.name ?? '',
    location: `${relative(rootDir, test.location.file)}:${test.location.line}`,
    status: result.status,
    durationMs: result.duration,
    annotations: uniqueAnnotations([...test.annotations, ...(result.annotations ?? [])]),
    ...(error ? { error: firstLines(error), errorName: errorName(error) } : {}),
  };
}

/** The test's and the result's annotations, each once: Playwright may hand the same one in both. */
function uniqueAnnotations(all: ReadonlyArray<{ type: string; description?: string }>): TestRecord['annotations'] {
  const seen = new Set<string>();
  return all.flatMap((a) => {
    const key = `${a.type}\u0000${a.description ?? ''}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [{ type: a.type, ...(a.description !== undefined ? { description: a.description } : {}) }];
  });
}

export function firstLines(error: TestError): string {
  return stripVTControlCharacters(error.message ?? error.value ?? 'unknown error')
    .split('\n')
    .slice(0, 6)
    .join('\n');
}

function errorName(error: TestError): string | undefined {
  return errorNameOf(error.message, error.stack);
}

/** The class of a thrown error (RequirementFailure, PreconditionFailure, TypeError...), read from its message or stack. */
export function errorNameOf(message = '', stack = ''): string | undefined {
  return /^(\w+(?:Failure|Error)):/.exec(message)?.[1] ?? /^(\w+(?:Failure|Error))\b/.exec(stack)?.[1];
}
