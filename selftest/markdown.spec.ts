import { createHash } from 'node:crypto';
import MarkdownIt from 'markdown-it';
import { expect, test } from '@playwright/test';
import { catalogSha256, interfaceInfo, requirement, requirements, type Requirement } from '../catalog/catalog.ts';
import { describeAnswer, describeSent, type Exchange } from '../kit/http/exchange.ts';
import { Redactor } from '../kit/redact.ts';
import { formatFailure } from '../kit/verdict.ts';
import { citeAnnotation, markAnnotation, NO_DELIVERY_CAUSE, type MarkKind } from '../kit/verdict-marks.ts';
import { matrixMarkdown } from '../reporters/matrix-markdown.ts';
import { splitReplays } from '../reporters/replay.ts';
import { brokenPreconditions, outcomeLabel, verdictNotes } from '../reporters/run-summary.ts';
import { judgeRun } from '../reporters/run-verdict.ts';
import { OUTCOMES, type TestRecord } from '../reporters/verdicts.ts';

// conformance.md rendered by a real CommonMark parser, on the worst case the suite can meet: every outcome, the
// longest and least tidy values a target answers and the suite sends (backticks, fences, Markdown and HTML syntax,
// other scripts), a digest where a cut at 300 characters once fell. Every code span and fence must close, every
// value must read back exactly as it was, every digest whole.

const digest = (text: string) => createHash('sha256').update(text).digest('hex');
const bodyDigest = digest('the body');
const ugly = [
  'Zoë Ðorđević 山田太郎 🙂 עברית',
  '`one` ``two`` ````four```` ` lone',
  '| pipe * star _under_ __dunder__ [link](https://example.org) <b>tag</b> &amp; \\ back # hash ~strike~ !',
].join(' ');

/** An exchange as the suite records it, with what real targets answer: backticks, fences, scripts, a long body. */
function exchangeOf(n: number): Exchange {
  const body = JSON.stringify({
    inquiryId: `inq-${n}`,
    note: `${ugly} \`\`\`\n\`\`\`sh\nrm -rf /\n\`\`\``,
    digest: bodyDigest,
    padding: 'x'.repeat(260),
    tags: ['ünïcödé', '```', '<script>alert(1)</script>'],
  });
  const text = JSON.stringify({ error: { code: 'bad', message: `${ugly}\n\`\`\`\n${'y'.repeat(5_000)}` } });
  return {
    label: `exchange ${n}`,
    note: 'x-client-id omitted `on purpose`',
    request: {
      method: 'POST',
      url: `https://api.example.com/business/identity-proofing/v1/assessment?q=${encodeURIComponent('`x`|*y*')}&name=Zoë`,
      headers: [
        ['content-type', 'application/json'],
        ['authorization', 'Bearer secret-token-value'],
      ],
      body,
    },
    status: 400,
    headers: { 'content-type': 'application/json' },
    rawHeaders: [['content-type', 'application/json']],
    text,
    json: JSON.parse(text),
    attempts: [],
    durationMs: 1,
    tokenFrom: { url: 'https://login.example.com/identity-auth/v1/token', keyVariable: 'API_KEY' },
  };
}

const redactor = new Redactor(['secret-token-value']);

/** A failure's detail exactly as the Verdict records it (kit/verdict.ts), from a real exchange. */
function failureDetail(id: string, n: number, long = false): string {
  const exchange = exchangeOf(n);
  const message = formatFailure(requirement(id), {
    sent: describeSent(exchange, redactor),
    expected: `an answer ${ugly}`,
    actual: describeAnswer(exchange, redactor),
    details: [
      `digest of what was sent: ${bodyDigest}`,
      '```',
      '    indented line',
      '> quoted',
      '# not a heading',
      ...(long ? [`the whole answer: ${exchange.text.slice(0, 3_000)}`] : []),
    ],
  });
  return redactor.text(
    message
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/^ {2}/, ''))
      .join('\n'),
  );
}

/** One test per outcome a mark gives, each titled and explained with the least tidy values. */
function worstCaseTests(): TestRecord[] {
  const [must, should, info] = (['MUST', 'SHOULD', 'INFO'] as const).map((level) =>
    requirements.filter((r) => r.level === level),
  ) as [Requirement[], Requirement[], Requirement[]];
  const noDelivery = `${NO_DELIVERY_CAUSE}: either the target sends none, or WEBHOOK_PUBLIC_URL=http://127.0.0.1:1/\`hooks\` does not reach the receiver`;
  const marks: Array<[MarkKind, Requirement[], (id: string, n: number) => string]> = [
    ['fail', must.slice(0, 6), (id, n) => failureDetail(id, n, n === 1)],
    ['blocked', must.slice(6, 9), () => `the target refused the control ${ugly}; got 403 ${bodyDigest}`],
    ['blocked', must.slice(9, 11), () => noDelivery],
    ['warn', should.slice(0, 3), (id, n) => failureDetail(id, n)],
    ['fail', must.slice(11, 12), (id, n) => failureDetail(id, n)],
    ['pass', must.slice(12, 14), () => ''],
    ['observed', info.slice(0, 3), () => `seen ${ugly}`],
    ['not-exercised', must.slice(14, 15), () => `ended ${ugly}`],
    ['not-configured', must.slice(15, 16), () => `set WEBHOOK_PUBLIC_URL ${ugly}`],
    ['not-produced', must.slice(16, 17), () => `never produced ${ugly}`],
  ];
  let n = 0;
  return marks.flatMap(([kind, rows, detail]) =>
    rows.map((r) => {
      n += 1;
      const status = kind === 'fail' ? 'failed' : ['not-configured', 'blocked'].includes(kind) ? 'skipped' : 'passed';
      return {
        title: `${kind} ${n}: ${ugly}`,
        project: `proj-${n % 3} \`x\``,
        location: `tests/${kind}/${'`ugly`'}-${n}.spec.ts:${n}`,
        status,
        annotations: [citeAnnotation(r.id), markAnnotation({ kind, id: r.id, detail: detail(r.id, n) })],
      } satisfies TestRecord;
    }),
  );
}

type Token = ReturnType<MarkdownIt['parse']>[number];

/** The text a reader sees of an inline run: its words and code, a soft line break read as the space it replaced. */
const plain = (inline: Token): string =>
  (inline.children ?? [])
    .map((t) => (['text', 'code_inline'].includes(t.type) ? t.content : t.type.endsWith('break') ? ' ' : ''))
    .join('');

test('the worst-case matrix stays Markdown: every fence and code span closes, every value reads back whole, every digest whole', () => {
  const tests = worstCaseTests();
  const known = requirements.filter((r) => r.level === 'MUST')[11]?.id as string;
  const { verdicts, run } = judgeRun(requirements, tests, 'gate', {
    ledger: [{ requirement: known, reason: `planned ${ugly}`, owner: 'team `a`', expires: '2999-12-31' }],
    notices: [`the preflight could not decide: webhooks: could not decide ${ugly}`],
  });
  expect(new Set(verdicts.map((v) => v.outcome)), 'every outcome is in the matrix').toEqual(new Set(OUTCOMES));
  const environment = {
    'catalog SHA-256': catalogSha256,
    target: `https://api.example.com/v1?x=\`y\`&z=_w_`,
    seed: '42',
    'odd key `k`': ugly,
  };
  const markdown = matrixMarkdown({
    interface: interfaceInfo,
    catalogSha256,
    profile: 'gate',
    environment,
    finishedAt: '2026-01-01T00:00:00.000Z',
    result: run.words,
    reasons: run.reasons,
    requirements: verdicts,
    run,
  });
  const tokens = new MarkdownIt().parse(markdown, {});
  const inlines = tokens.filter((t) => t.type === 'inline');
  const texts = inlines.map(plain);
  const spans = inlines.flatMap((t) =>
    (t.children ?? []).filter((c) => c.type === 'code_inline').map((c) => c.content),
  );
  const fences = tokens.filter((t) => t.type === 'fence').map((t) => t.content);
  const readsBack = (text: string) => texts.some((shown) => shown.includes(text.replace(/\s*[\r\n]+\s*/g, ' ')));

  // Every section's heading is a heading: no fence or span left open swallowed what follows it.
  const detailed = verdicts.filter((v) => ['failed', 'blocked', 'warning', 'known'].includes(v.outcome));
  const headings = tokens.flatMap((t, i) =>
    t.type === 'heading_open' && t.tag === 'h3' ? [tokens[i + 1]?.content] : [],
  );
  expect(headings).toEqual(detailed.map((v) => `${v.id} (${v.level}, part ${v.part}): ${v.outcome}`));
  expect(tokens.at(-1)?.type, 'the document ends outside any block').not.toBe('fence');

  // The verdict, its reasons, notes and broken preconditions, the environment, each row, each failure: read back exactly.
  expect(texts).toContain(
    `Result: ${run.words} (profile gate), 2026-01-01T00:00:00.000Z. Catalog SHA-256 ${catalogSha256}.`,
  );
  const listed = verdicts.filter((v) => v.outcome !== 'uncovered');
  const failing = detailed.flatMap((v) => v.tests);
  const shown = [
    ...run.reasons.map((reason) => `Fails: ${reason}`),
    ...verdictNotes(run),
    ...brokenPreconditions(verdicts),
    ...Object.entries(environment).map(([key, value]) => `${key}: ${value}`),
    ...listed.filter((v) => !detailed.includes(v)).map(outcomeLabel),
    ...detailed.map((v) => v.statement),
    ...failing.map((t) => `${t.outcome}: ${t.project} › ${t.title} (${t.location})`),
  ];
  const unread = shown.filter((text) => !readsBack(text));
  expect(unread, 'what does not read back whole').toEqual([]);
  expect(spans, 'the digest is a code span of its own, whole').toContain(catalogSha256);
  expect(tokens.filter((t) => t.type === 'tr_open').length - 1, 'a row per listed requirement').toBe(listed.length);

  // Each failing test's location is a span, its evidence and replays each whole in a fence.
  for (const t of failing) {
    expect(spans).toContain(t.location);
    const { evidence, replays } = splitReplays(t.detail ?? '');
    const text = evidence.join('\n').replace(/^\s*\n|\n\s*$/g, '');
    if (text) expect(fences, `the evidence of ${t.title}`).toContain(`${text}\n`);
    for (const replay of replays) expect(fences, 'a replay, whole').toContain(`${replay}\n`);
  }
  expect(markdown, 'long evidence folds, whole').toContain('<details>');
  expect(
    markdown.split('\n').filter((line) => /…$/.test(line)),
    'nothing is cut with an ellipsis',
  ).toEqual([]);
});
