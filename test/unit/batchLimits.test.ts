/** The batch pre-flight's arithmetic: exact sums in pips, limits absent or given without `remaining`. */
import { checkBatch } from '../../nodes/Clearinghouse/actions/account/batchLimits';
import { parseUsdAmount } from '../../nodes/shared/amounts';

const amounts = (...values: string[]) => values.map((v) => parseUsdAmount(v));

test('sums exactly: 0.1 + 0.2 is 0.3, which fits a remaining 0.3', () => {
	const report = checkBatch(amounts('0.1', '0.2'), { maxValuePerEpochUsd: { limit: 1, used: 0.7, remaining: 0.3 } });
	expect(report).toMatchObject({ ok: true, totalUsd: 0.3, orders: 2 });
	expect(report.notChecked).toEqual(['maxTxUsd', 'maxCountPerEpoch', 'maxCountPerDay', 'maxValuePerDayUsd']);
});

test('one pip over is over', () => {
	const report = checkBatch(amounts('0.2', '0.1001'), { maxValuePerEpochUsd: { limit: 1, used: 0.7, remaining: 0.3 } });
	expect(report.ok).toBe(false);
	expect(report.problems).toEqual(['the batch totals 0.3001 USD but only 0.3 USD per netting window is left (maxValuePerEpochUsd 1): 0.0001 USD over']);
});

test('without `remaining` the limit minus `used` is what is left; maxTxUsd holds each order, not the sum', () => {
	const report = checkBatch(amounts('60', '60'), { maxTxUsd: { limit: 100 }, maxCountPerDay: { limit: 5, used: 4 } });
	expect(report.problems).toEqual(['2 orders but only 1 orders per day left (maxCountPerDay 5): 1 too many']);
	expect(report.checks[0]).toMatchObject({ limit: 'maxTxUsd', batch: 60, ceiling: 100, ok: true });
});

test('an empty batch fits', () => {
	expect(checkBatch([], { maxTxUsd: { limit: 1, used: 0, remaining: 1 } })).toMatchObject({ ok: true, orders: 0, totalUsd: 0, largestItem: 0 });
});

test('what is left without `remaining` is exact: 1000.3 less 0.1 used fits a batch of 1000.2', () => {
	const report = checkBatch(amounts('600', '400.2'), { maxValuePerDayUsd: { limit: 1000.3, used: 0.1 } });
	expect(report).toMatchObject({ ok: true, totalUsd: 1000.2 });
	expect(report.checks[0]).toMatchObject({ limit: 'maxValuePerDayUsd', remaining: 1000.2, ok: true });
});

test('a limit it cannot read exactly stops the check, naming the limit', () => {
	expect(() => checkBatch(amounts('1'), { maxTxUsd: { limit: 1000.00001 } })).toThrow(/account limit maxTxUsd could not be read exactly/);
});
