import { templateSchemas } from '@domdao/notification-contract';
import { defineTemplate } from './template-schema.ts';

export const e2eTestResults = defineTemplate({
  type: 'e2e-test-results',
  brands: 'both',
  description: 'Summary of an end-to-end test run for the engineering team.',
  schema: templateSchemas['e2e-test-results'],
  example: {
    run_id: 'run-2026-11-22-0417',
    pass_count: 182,
    fail_count: 2,
    total: 186,
    run_url: 'https://ci.domdao.example/runs/0417',
    suite_results: [
      { suite: 'governance', pass: 90, fail: 0, url: 'https://ci.domdao.example/runs/0417/governance' },
      { suite: 'registration', pass: 92, fail: 2 },
    ],
  },
  check: (d) =>
    d.pass_count + d.fail_count > d.total
      ? [{ field: 'data.total', message: 'must be at least pass_count + fail_count' }]
      : [],
  render: (d) => {
    const ok = d.fail_count === 0;
    return {
      subject: `${ok ? 'PASSED' : 'FAILED'}: E2E run ${d.run_id} (${d.pass_count}/${d.total} passed)`,
      preheader: `${d.fail_count} failed, ${d.pass_count} passed of ${d.total}.`,
      reason: 'You received this email because you are subscribed to end-to-end test reports.',
      blocks: [
        { kind: 'heading', text: `E2E run ${d.run_id}: ${ok ? 'passed' : 'failed'}` },
        {
          kind: 'details',
          rows: [
            ['Passed', String(d.pass_count)],
            ['Failed', String(d.fail_count)],
            ['Total', String(d.total)],
          ],
        },
        ...(d.suite_results && d.suite_results.length > 0
          ? [
              {
                kind: 'table' as const,
                head: ['Suite', 'Pass', 'Fail'],
                rows: d.suite_results.map((s) => ({
                  cells: [s.suite, String(s.pass), String(s.fail)],
                  ...(s.url && { url: s.url }),
                })),
              },
            ]
          : []),
        { kind: 'button', label: 'Open the run', url: d.run_url },
      ],
    };
  },
});
